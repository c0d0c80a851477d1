//! Builds Eclipse ThreadX for the target's core — the kernel (`common/`) and
//! its GNU port (`ports/cortex_m3/gnu` for the mps2-an385's Cortex-M3,
//! `ports/cortex_m0/gnu` for the micro:bit's Cortex-M0) — from the tree
//! THREADX_DIR names, with `config/tx_user.h` and antpool-threadx's
//! `csrc/antpool_threadx.c`; and puts the board's memory map where
//! cortex-m-rt's `link.x` looks for `memory.x`.

use std::path::{Path, PathBuf};
use std::{env, fs};

fn main() {
    println!("cargo:rerun-if-env-changed=THREADX_DIR");
    println!("cargo:rerun-if-changed=config/tx_user.h");
    println!("cargo:rerun-if-changed=memory-an385.x");
    println!("cargo:rerun-if-changed=memory-microbit.x");
    println!("cargo:rerun-if-changed=../csrc/antpool_threadx.c");
    println!("cargo:rustc-check-cfg=cfg(microbit)");
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let target = env::var("TARGET").unwrap_or_default();
    let (port, memory): (&str, &[u8]) = match target.as_str() {
        "thumbv7m-none-eabi" => ("cortex_m3", include_bytes!("memory-an385.x")),
        "thumbv6m-none-eabi" => {
            println!("cargo:rustc-cfg=microbit");
            ("cortex_m0", include_bytes!("memory-microbit.x"))
        }
        other => panic!(
            "antpool-threadx-qemu runs on thumbv7m-none-eabi (mps2-an385) and \
             thumbv6m-none-eabi (microbit), not {other}"
        ),
    };
    // (Neither file is called memory.x: the linker would find one in this
    // directory before the one written here.)
    fs::write(out.join("memory.x"), memory).expect("write memory.x");
    println!("cargo:rustc-link-search={}", out.display());

    let tree = threadx_dir(port);
    let port_dir = tree.join("ports").join(port).join("gnu");
    let mut kernel = cc::Build::new();
    kernel
        .include(tree.join("common/inc"))
        .include(port_dir.join("inc"))
        .include("config")
        .define("TX_INCLUDE_USER_DEFINE_FILE", None)
        .flag("-ffunction-sections")
        .flag("-fdata-sections")
        // The kernel's own C is not ours to warn about.
        .warnings(false)
        .files(sources(&tree.join("common/src"), &["c"]))
        .files(sources(&port_dir.join("src"), &["c", "S"]))
        .file("../csrc/antpool_threadx.c");
    kernel.compile("threadx");
}

/// The ThreadX tree: THREADX_DIR, which must be set and hold the kernel and
/// the port for `port`. Anything else stops the build and says what is
/// missing.
fn threadx_dir(port: &str) -> PathBuf {
    let Some(dir) = env::var_os("THREADX_DIR") else {
        panic!(
            "\n\nTHREADX_DIR is not set: this demo builds Eclipse ThreadX (its kernel and its \
             {port} port) from a ThreadX source tree. Set THREADX_DIR to one, as an absolute \
             path; in this repository's layout:\n\n    \
             export THREADX_DIR=\"$(realpath ../shared/vendor/threadx)\"   # from the repository root\n"
        )
    };
    let dir = PathBuf::from(dir);
    if !dir.is_absolute() {
        panic!(
            "\n\nTHREADX_DIR is {}: give it as an absolute path\n",
            dir.display()
        );
    }
    let port_src = format!("ports/{port}/gnu/src");
    for needed in ["common/inc/tx_api.h", "common/src", port_src.as_str()] {
        if !dir.join(needed).exists() {
            panic!(
                "\n\nTHREADX_DIR is {}, which has no {needed}: it must be a ThreadX source tree \
                 with the kernel (common/) and its GNU {port} port\n",
                dir.display()
            );
        }
    }
    dir
}

/// The files of `dir` with one of `extensions`, in order.
fn sources(dir: &Path, extensions: &[&str]) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| {
            path.extension()
                .is_some_and(|ext| extensions.iter().any(|e| ext == *e))
        })
        .collect();
    files.sort();
    files
}
