//! The integration tests: one binary (one link of ONNX Runtime and the
//! tokenizers instead of five) that runs the real `thehook` binary on temp
//! projects. Without the `model` feature every test runs lexical-only and
//! the few that need the embedding model are ignored; `scripts/test.sh`
//! turns the feature on (`--features thehook-cli/model`).
//!
//! Unix only: the fake LLM CLIs and agents they drive are shell scripts,
//! and several cases need symlinks and POSIX permissions. On Windows the
//! release workflow runs the unit tests and a smoke run of the binary.
#![cfg(unix)]
#![allow(unreachable_pub)] // test helpers, shared by the modules of this binary

mod common;
#[path = "../../../thehook-core/tests/fixtures/redact/samples.rs"]
mod redact_samples;

mod agents;
mod browse;
mod capture;
mod cli;
mod contexts;
mod docs;
mod faults;
mod file_hook;
mod fresh;
mod hooks;
mod mcp;
mod output;
mod prompt;
mod review_range;
mod safety;
mod setup_notes;
mod stale;
mod team;
mod ui;
