use super::*;

#[test]
fn every_agent_answers_to_its_names_and_its_spec_is_its_own() {
    for agent in Agent::ALL {
        let id = &agent.description().identity;
        for name in [id.name, id.short_name].iter().chain(id.aliases) {
            assert_eq!(Agent::parse(name), Some(agent), "{name}");
            assert_eq!(Agent::parse(&name.to_uppercase()), Some(agent), "{name}");
        }
        assert_eq!(Agent::named(agent.as_str()), Some(agent));
    }
    assert_eq!(Agent::parse("vim"), None);
}

#[test]
fn thehook_commands_are_recognised_by_program_and_subcommand() {
    for ours in [
        "thehook retrieve",
        "/usr/local/bin/thehook capture --agent cursor",
        "'/Users/a b/bin/thehook' retrieve --agent claude-code",
        "node_modules/.bin/thehook.js retrieve",
        r"& 'C:\Program Files\thehook\thehook.exe' retrieve --agent codex",
        r"C:\Users\ann\AppData\Roaming\npm\thehook.exe capture --agent gemini",
        "'C:/Program Files/thehook/thehook.exe' capture --agent claude-code",
        r"C:\Users\ann\AppData\Roaming\npm\thehook.cmd retrieve --agent codex",
    ] {
        assert!(is_thehook_command(ours), "{ours}");
    }
    for foreign in [
        "thehook recall x",
        "echo thehook retrieve",
        "./lint.sh",
        "thehookx retrieve",
        r"C:\tools\thehook.bat retrieve",
        "",
    ] {
        assert!(!is_thehook_command(foreign), "{foreign}");
    }
}

/// Everything about one agent lives in its module (`agents/<agent>/`); the
/// rest of the code asks the list (`agents/mod.rs`) and the spec. Outside
/// them, no code (comments and tests aside) names an agent: adding one is
/// adding its module, its line in the list, fixtures and tests.
#[test]
fn no_code_outside_its_module_and_the_list_names_an_agent() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    // The words people address a model by, in the patterns that withhold
    // instructions to one and in the learned check's features: models, not
    // agents' wiring.
    let excused = [
        Path::new("thehook-core/src/text/safety/rules.rs"),
        Path::new("thehook-core/src/text/safety/learned.rs"),
    ];
    let mut found = Vec::new();
    for file in walkdir::WalkDir::new(&crates)
        .into_iter()
        .filter_map(|e| e.ok())
        .map(|e| e.into_path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
    {
        let rel = file.strip_prefix(&crates).unwrap();
        let is_test = rel.components().any(|c| c.as_os_str() == "tests")
            || rel.file_name().is_some_and(|n| n == "tests.rs");
        let in_src = rel
            .components()
            .nth(1)
            .is_some_and(|c| c.as_os_str() == "src");
        if is_test || !in_src || excused.contains(&rel) || rel.ends_with("src/agents/mod.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        for (n, line) in code_lines(&text) {
            for agent in Agent::ALL {
                let own =
                    Path::new("thehook-core/src/agents").join(agent.as_str().replace('-', "_"));
                if rel.starts_with(&own) {
                    continue;
                }
                if names_of(agent)
                    .iter()
                    .any(|name| line.to_lowercase().contains(name))
                {
                    found.push(format!(
                        "{}:{n}: {} in `{}`",
                        rel.display(),
                        agent,
                        line.trim()
                    ));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "agents named outside their modules:\n{}",
        found.join("\n")
    );
}

/// The words that name `agent` in code: its names and its CLI's.
fn names_of(agent: Agent) -> Vec<String> {
    let id = &agent.description().identity;
    let cli = &agent.description().distill;
    [id.name, id.short_name, id.display_name, cli.name]
        .iter()
        .chain(id.aliases)
        .map(|n| n.to_lowercase())
        .collect()
}

/// The 1-based lines of a source file that are code: comments and the
/// test module at its end left out.
fn code_lines(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("#[cfg(test)]") || trimmed.starts_with("#[cfg(all(test") {
            break;
        }
        if trimmed.starts_with("//") {
            continue;
        }
        // A trailing comment: `//` outside a string literal.
        let mut quotes = 0;
        let mut end = line.len();
        for (at, _) in line.match_indices(['"', '/']) {
            match &line[at..] {
                rest if rest.starts_with('"') => quotes += 1,
                rest if rest.starts_with("//") && quotes % 2 == 0 => {
                    end = at;
                    break;
                }
                _ => {}
            }
        }
        out.push((i + 1, line[..end].to_string()));
    }
    out
}

/// Tools are known by name whichever agent lists them, so a name has one
/// meaning: no two agents list it.
#[test]
fn every_tool_name_is_listed_by_one_agent() {
    let mut seen = std::collections::HashMap::new();
    for agent in Agent::ALL {
        for (name, _) in agent.description().tools {
            if let Some(other) = seen.insert(*name, agent) {
                panic!("{name} is listed by {other} and {agent}");
            }
        }
    }
    assert!(seen.len() >= 40, "{} tool names", seen.len());
}

/// A session start is the one hook every agent answers with context: an
/// agent described without it would start every session empty.
#[test]
fn every_agent_adds_context_at_session_start() {
    for agent in Agent::ALL {
        let output = super::session_start_output(agent, "the block");
        assert!(
            output.to_string().contains("the block"),
            "{agent}: {output}"
        );
    }
}
