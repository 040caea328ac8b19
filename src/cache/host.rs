//! A runtime-only build (without the `compiler` feature) has no code
//! generator whose settings and CPU features it could compare with a
//! file's. It checks the CPU features the file's code needs against this
//! CPU itself, and accepts the file's code-generation settings: they
//! choose how good the code is, while everything the runtime relies on
//! (calling conventions, frame pointers, stack checks, the VMContext) is
//! fixed by the cranewasm and Cranelift versions, which are compared.

use super::codec::damaged;
use super::header::CPU_FEATURE_PREFIX;
use crate::environ::error::Result;

/// Checks the recorded CPU features against this CPU and gives back the
/// recorded values left to compare with the engine's fingerprint.
pub fn check(recorded: Vec<(String, String)>) -> Result<Vec<(String, String)>> {
    let mut rest = Vec::new();
    for (key, value) in recorded {
        if key.starts_with("cranelift.") {
            continue;
        }
        let Some(feature) = key.strip_prefix(CPU_FEATURE_PREFIX) else {
            // Other target settings (none on x86-64) cannot be checked here.
            if let Some(setting) = key.strip_prefix("cpu.") {
                if value != "0" && value != "false" {
                    return Err(damaged(format_args!(
                        "it was compiled with the target setting {setting} = {value}, which a runtime-only build \
                         cannot check"
                    )));
                }
                continue;
            }
            rest.push((key, value));
            continue;
        };
        if value == "0" || value == "false" {
            continue;
        }
        match has(feature) {
            Some(true) => {}
            Some(false) => {
                return Err(damaged(format_args!(
                    "it needs the CPU feature has_{feature} ({value}), which this CPU lacks"
                )));
            }
            None => {
                return Err(damaged(format_args!(
                    "it needs the CPU feature has_{feature} ({value}), which this runtime-only build cannot check"
                )));
            }
        }
    }
    Ok(rest)
}

/// Whether this CPU has the feature Cranelift calls `has_{name}`; `None`
/// for a name this build does not know.
#[cfg(target_arch = "x86_64")]
fn has(name: &str) -> Option<bool> {
    use std::arch::is_x86_feature_detected as x86;
    Some(match name {
        "sse3" => x86!("sse3"),
        "ssse3" => x86!("ssse3"),
        "cmpxchg16b" => x86!("cmpxchg16b"),
        "sse41" => x86!("sse4.1"),
        "sse42" => x86!("sse4.2"),
        "popcnt" => x86!("popcnt"),
        "avx" => x86!("avx"),
        "avx2" => x86!("avx2"),
        "fma" => x86!("fma"),
        "bmi1" => x86!("bmi1"),
        "bmi2" => x86!("bmi2"),
        "lzcnt" => x86!("lzcnt"),
        "avx_vnni" => x86!("avxvnni"),
        "avx512bitalg" => x86!("avx512bitalg"),
        "avx512dq" => x86!("avx512dq"),
        "avx512vl" => x86!("avx512vl"),
        "avx512vbmi" => x86!("avx512vbmi"),
        "avx512f" => x86!("avx512f"),
        "avx512vnni" => x86!("avx512vnni"),
        _ => return None,
    })
}

/// Whether this CPU has the feature Cranelift calls `has_{name}`; `None`
/// for a name this build does not know.
#[cfg(target_arch = "aarch64")]
fn has(name: &str) -> Option<bool> {
    use std::arch::is_aarch64_feature_detected as arm;
    Some(match name {
        "lse" => arm!("lse"),
        "pauth" => arm!("paca"),
        "fp16" => arm!("fp16"),
        "dotprod" => arm!("dotprod"),
        "i8mm" => arm!("i8mm"),
        _ => return None,
    })
}

/// Whether this CPU has the feature Cranelift calls `has_{name}`: no
/// other target is known here.
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
fn has(_: &str) -> Option<bool> {
    None
}
