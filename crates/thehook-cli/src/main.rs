//! The `thehook` binary: the library's parser over the process's own streams.

fn main() {
    // SAFETY: the first statement of `main`: no other thread exists yet.
    unsafe { thehook_core::env::quiet_onnx_runtime_before_threads() };
    let mut out = thehook_cli::Output::process();
    let code = thehook_cli::run(std::env::args_os(), &mut out);
    std::process::exit(code);
}
