//! The `thehook` binary: the library's parser over the process's own streams.

fn main() {
    // Before any thread exists (see thehook_core::embed::runtime_environment).
    if std::env::var_os("ORT_DISABLE_TELEMETRY").is_none() {
        std::env::set_var("ORT_DISABLE_TELEMETRY", "1");
    }
    let mut out = thehook_cli::Output::process();
    let code = thehook_cli::run(std::env::args_os(), &mut out);
    std::process::exit(code);
}
