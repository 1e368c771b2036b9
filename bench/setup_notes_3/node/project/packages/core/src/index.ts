import MarkdownIt from "markdown-it";
import pLimit from "p-limit";
import { request } from "undici";

export interface LinkResult {
  url: string;
  status: number | null;
  ok: boolean;
}

const md = new MarkdownIt();

export function extractLinks(source: string): string[] {
  const links: string[] = [];
  for (const token of md.parseInline(source, {})) {
    for (const child of token.children ?? []) {
      const href = child.attrGet("href");
      if (child.type === "link_open" && href?.startsWith("http")) links.push(href);
    }
  }
  return links;
}

export async function checkUrls(urls: string[], concurrency = 8): Promise<LinkResult[]> {
  const limit = pLimit(concurrency);
  return Promise.all(
    urls.map((url) =>
      limit(async () => {
        try {
          const res = await request(url, { method: "HEAD", maxRedirections: 5 });
          return { url, status: res.statusCode, ok: res.statusCode < 400 };
        } catch {
          return { url, status: null, ok: false };
        }
      }),
    ),
  );
}
