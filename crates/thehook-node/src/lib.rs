//! thehook for Node: a thin napi-rs layer over `thehook-core`. Every
//! function but `cli` returns a Promise whose work runs on libuv's thread
//! pool; errors are JS `Error`s with the core's stable `code`.

use napi_derive::napi;

/// Runs the `thehook` command line in-process (the npm `bin` shim's body):
/// `argv` without the program name; returns the exit code.
#[napi(catch_unwind)]
pub fn cli(argv: Vec<String>) -> i32 {
    let mut out = thehook_cli::Output::process();
    let args = std::iter::once("thehook".to_string()).chain(argv);
    thehook_cli::run(args, &mut out)
}

/// The version of the addon (the crate's).
#[napi]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}
