//! Running this test executable again as a child process, under the
//! emulator `tests/aarch64.sh` names in `CRANEWASM_TEST_RUNNER` (a
//! cross-built test cannot exec itself where the kernel does not know its
//! CPU).

use std::process::Command;

/// The words of the runner, empty when the tests run natively.
pub fn runner() -> Vec<String> {
    std::env::var("CRANEWASM_TEST_RUNNER").unwrap_or_default().split_whitespace().map(str::to_string).collect()
}

/// A command that runs this test executable (through the runner, if any).
pub fn self_command() -> Command {
    let exe = std::env::current_exe().expect("test executable");
    match runner().split_first() {
        Some((program, args)) => {
            let mut cmd = Command::new(program);
            cmd.args(args).arg(exe);
            cmd
        }
        None => Command::new(exe),
    }
}
