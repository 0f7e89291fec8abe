//! Build chores that need no `cargo install`: `cargo run -p xtask -- bindgen <in.wasm> <out-dir> [web]`
//! runs wasm-bindgen through the `wasm-bindgen-cli-support` library, whose version is pinned by
//! `Cargo.lock` to the same release as the `wasm-bindgen` crate (see docs: toolchain.md §4.4).
//! `cargo run -p xtask -- check-artifacts npm/platforms [--doc docs/platforms.md]` checks the
//! per-platform native addons (see `artifacts.rs` and docs/platforms.md).
use std::process::ExitCode;

mod artifacts;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("check-artifacts") => match artifacts::run(&args[1..]) {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::FAILURE,
            Err(e) => {
                eprintln!("xtask: check-artifacts: {e}");
                ExitCode::FAILURE
            }
        },
        Some("bindgen") if args.len() >= 3 => {
            let target = args.get(3).map(String::as_str).unwrap_or("web");
            let mut b = wasm_bindgen_cli_support::Bindgen::new();
            let r = match target {
                "web" => b.web(true),
                "nodejs" => b.nodejs(true),
                "bundler" => b.bundler(true),
                other => {
                    eprintln!("xtask: unknown wasm-bindgen target {other}");
                    return ExitCode::FAILURE;
                }
            };
            if let Err(e) = r
                .map(|b| {
                    b.input_path(&args[1])
                        .typescript(true)
                        .omit_default_module_path(false)
                })
                .and_then(|b| b.generate(&args[2]))
            {
                eprintln!("xtask: wasm-bindgen failed: {e:#}");
                return ExitCode::FAILURE;
            }
            ExitCode::SUCCESS
        }
        _ => {
            eprintln!(
                "usage: cargo run -p xtask -- bindgen <input.wasm> <out-dir> [web|nodejs|bundler]\n       cargo run -p xtask -- check-artifacts <dir> [--doc FILE] [--allow-missing] [key ...]"
            );
            ExitCode::FAILURE
        }
    }
}
