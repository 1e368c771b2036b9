import { readFile } from "node:fs/promises";
import { Command } from "commander";
import pc from "picocolors";
import { checkUrls, extractLinks } from "@hrefhound/core";

const program = new Command()
  .name("hrefhound")
  .description("find broken links in markdown files")
  .argument("<files...>", "markdown files to scan")
  .option("-c, --concurrency <n>", "parallel requests", "8")
  .action(async (files: string[], opts: { concurrency: string }) => {
    let broken = 0;
    for (const file of files) {
      const links = extractLinks(await readFile(file, "utf8"));
      for (const r of await checkUrls(links, Number(opts.concurrency))) {
        if (!r.ok) {
          broken += 1;
          console.log(`${pc.red("broken")} ${file}: ${r.url} (${r.status ?? "no response"})`);
        }
      }
    }
    process.exitCode = broken > 0 ? 1 : 0;
  });

await program.parseAsync();
