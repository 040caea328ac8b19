//! Empty: this package only names crates for `cargo vendor` (see Cargo.toml).
