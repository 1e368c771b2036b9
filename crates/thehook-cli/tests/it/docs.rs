//! `docs/commands.md` is generated from the CLI's own definitions (clap), so
//! the reference cannot drift from `--help`: this test fails when it does.
//! `UPDATE_DOCS=1 cargo test --test it docs` writes it anew.

use clap::CommandFactory;
use thehook_cli::Cli;

/// Every command's `--help`, one section a command, subcommands below.
fn reference() -> String {
    let mut out = String::from(
        "# Commands\n\n\
         Every `thehook` command's `--help`, generated from the CLI's definitions \
         (`crates/thehook-cli/src/args.rs`) by `crates/thehook-cli/tests/it/docs.rs`; \
         do not edit by hand. [Back to the README](../README.md).\n",
    );
    let mut cli = Cli::command().term_width(100);
    cli.build();
    section(&mut out, &mut cli, "thehook", 2);
    out
}

fn section(out: &mut String, cmd: &mut clap::Command, path: &str, depth: usize) {
    let help = cmd.render_long_help().to_string();
    let help: Vec<&str> = help.lines().map(str::trim_end).collect();
    out.push_str(&format!(
        "\n{} `{path}`\n\n```text\n{}\n```\n",
        "#".repeat(depth),
        help.join("\n").trim()
    ));
    let names: Vec<String> = cmd
        .get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
        .map(|s| s.get_name().to_string())
        .collect();
    for name in names {
        let sub = cmd.find_subcommand_mut(&name).expect("listed");
        section(out, sub, &format!("{path} {name}"), (depth + 1).min(4));
    }
}

#[test]
fn docs_commands_md_is_the_cli_help() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/commands.md");
    let want = reference();
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "docs/commands.md is not the CLI's help: run `UPDATE_DOCS=1 cargo test --test it docs` and commit it"
    );
}

#[test]
fn help_names_every_item_type_and_agent_the_cli_accepts() {
    let all = reference();
    for kind in thehook_core::ItemKind::ALL {
        assert!(all.contains(kind.as_str()), "{kind:?}");
    }
    for agent in thehook_core::agents::Agent::ALL {
        assert!(all.contains(agent.display_name()), "{agent:?}");
        assert!(all.contains(agent.short_name()), "{agent:?}");
    }
    let k = format!(
        "default {}, at most {}",
        thehook_core::front_door::DEFAULT_K,
        thehook_core::front_door::MAX_K
    );
    assert!(all.contains(&k), "{k}");
}

/// The Node typings (`index.d.ts`, generated from the addon's doc comments)
/// list types, agents and limits as the CLI's help does: a line that names
/// three or more of them names them all, in the help's words.
#[test]
fn node_typings_list_what_the_help_lists() {
    use thehook_core::help;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../index.d.ts");
    let typings = std::fs::read_to_string(path).unwrap();
    let word = |line: &str, w: &str| {
        regex::Regex::new(&format!(r"\b{}\b", regex::escape(w)))
            .unwrap()
            .is_match(line)
    };
    let kinds: Vec<&str> = thehook_core::ItemKind::ALL.map(|k| k.as_str()).to_vec();
    let agents: Vec<&str> = thehook_core::agents::Agent::ALL
        .map(|a| a.short_name())
        .to_vec();
    // (the names a list is made of, the wordings allowed, what it lists)
    let lists = [
        (
            kinds,
            vec![help::kinds(), help::rememberable_kinds()],
            "types",
        ),
        (agents, vec![help::agent_names()], "agents"),
    ];
    let mut checked = 0;
    for line in typings
        .lines()
        .filter(|l| l.trim_start().starts_with(['/', '*']))
    {
        for (names, wordings, what) in &lists {
            if names.iter().filter(|n| word(line, n)).count() >= 3 {
                checked += 1;
                assert!(
                    wordings.iter().any(|w| line.contains(w.as_str())),
                    "index.d.ts lists {what} its own way: {line}"
                );
            }
        }
        if line.contains("(default ") && line.contains("convention") {
            checked += 1;
            assert!(
                line.contains(&help::rememberable_kinds_and_default()),
                "index.d.ts says remember's default its own way: {line}"
            );
        }
        if line.contains("unique prefix of") {
            checked += 1;
            let prefix = format!("{}+ characters", thehook_core::front_door::MIN_ID_PREFIX);
            assert!(
                line.contains(&prefix),
                "index.d.ts says the id prefix its own way: {line}"
            );
        }
        if line.contains("How many results") {
            checked += 1;
            assert!(
                line.contains(&help::k()),
                "index.d.ts says k its own way: {line}"
            );
        }
    }
    assert!(
        checked >= 8,
        "the typings' lists were not found ({checked})"
    );
}

/// The README's command table says what each command's `--help` says.
#[test]
fn readme_commands_table_is_the_cli_help() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md");
    let readme = std::fs::read_to_string(path).unwrap();
    let mut cli = Cli::command();
    cli.build();
    for sub in cli
        .get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
    {
        let about = sub.get_about().map(|a| a.to_string()).unwrap_or_default();
        let about = about.split_whitespace().collect::<Vec<_>>().join(" ");
        let name = sub.get_name();
        let row = format!("| [`{name}`](docs/commands.md#thehook-{name}) | {about} |");
        assert!(
            readme.contains(&row),
            "README.md's commands table lacks, or words otherwise:\n{row}"
        );
    }
}

/// docs/configuration.md shows the file `init` writes (the commented
/// defaults, which a core test parses back into `Config::default()`) and
/// the environment overrides `config.rs` reads, in its order.
/// `UPDATE_DOCS=1 cargo test --test it docs` writes both anew.
#[test]
fn docs_configuration_md_is_the_defaults_and_the_overrides() {
    use thehook_core::config::{COMMENTED_DEFAULTS, ENV_OVERRIDES};
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/configuration.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    // The defaults without their two header comment lines.
    let body: String = COMMENTED_DEFAULTS
        .lines()
        .skip_while(|l| l.starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect();
    let yaml_start = doc.find("```yaml\n").expect("a yaml block") + "```yaml\n".len();
    let yaml_end = yaml_start + doc[yaml_start..].find("```\n").expect("its end");
    // A row a variable: its key, then what the row adds (an example).
    let rows_start = doc.find("|---|---|\n").expect("the overrides table") + "|---|---|\n".len();
    let rows_end = rows_start + doc[rows_start..].find("\n\n").expect("its end") + 1;
    let notes: std::collections::HashMap<&str, &str> = doc[rows_start..rows_end]
        .lines()
        .filter_map(|row| {
            let row = row.strip_prefix("| `")?.strip_suffix(" |")?;
            let (var, key) = row.split_once("` | ")?;
            Some((var, key.split_once("` ").map_or("", |(_, note)| note)))
        })
        .collect();
    let rows: String = ENV_OVERRIDES
        .iter()
        .map(
            |(var, key)| match notes.get(var).filter(|n| !n.is_empty()) {
                Some(note) => format!("| `{var}` | `{key}` {note} |\n"),
                None => format!("| `{var}` | `{key}` |\n"),
            },
        )
        .collect();
    let wanted = format!(
        "{}{body}{}{rows}{}",
        &doc[..yaml_start],
        &doc[yaml_end..rows_start],
        &doc[rows_end..]
    );
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::write(&path, &wanted).unwrap();
    }
    assert!(
        doc == wanted,
        "docs/configuration.md is not the defaults and overrides: run `UPDATE_DOCS=1 cargo test --test it docs` and commit it"
    );
}
