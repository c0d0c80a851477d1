//! Builds Eclipse ThreadX for its Linux port (`ports/linux/gnu`: the kernel
//! on host pthreads) from the source tree THREADX_DIR names, with this
//! crate's glue and antpool-threadx's `csrc/antpool_threadx.c`.

use std::env;
use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-env-changed=THREADX_DIR");
    println!("cargo:rerun-if-changed=config/tx_user.h");
    println!("cargo:rerun-if-changed=csrc/sim_glue.c");
    println!("cargo:rerun-if-changed=../csrc/antpool_threadx.c");
    let tree = threadx_dir();
    let port = tree.join("ports/linux/gnu");
    let mut kernel = cc::Build::new();
    kernel
        .include(tree.join("common/inc"))
        .include(port.join("inc"))
        .include("config")
        .define("TX_INCLUDE_USER_DEFINE_FILE", None)
        // The port's own build defines both: pthread and CPU-set calls, and
        // the whole process on one CPU (ThreadX runs one thread at a time;
        // its simulated interrupts suspend the running one with a signal).
        .define("_GNU_SOURCE", None)
        .define("TX_LINUX_MULTI_CORE", None)
        // The kernel's own C is not ours to warn about.
        .warnings(false)
        .files(sources(&tree.join("common/src")))
        .files(sources(&port.join("src")))
        .file("csrc/sim_glue.c")
        .file("../csrc/antpool_threadx.c");
    kernel.compile("threadx");
    println!("cargo:rustc-link-lib=pthread");
    println!("cargo:rustc-link-lib=rt");
}

/// The ThreadX tree: THREADX_DIR, which must be set and hold the kernel and
/// its Linux port. Anything else stops the build and says what is missing.
fn threadx_dir() -> PathBuf {
    let Some(dir) = env::var_os("THREADX_DIR") else {
        panic!(
            "\n\nTHREADX_DIR is not set: antpool-threadx's tests build Eclipse ThreadX (its kernel \
             and its Linux port) from a ThreadX source tree. Set THREADX_DIR to one, as an \
             absolute path; in this repository's layout:\n\n    \
             export THREADX_DIR=\"$(realpath ../shared/vendor/threadx)\"   # from the repository root\n\n\
             (The tree needs common/ and ports/linux/gnu/; upstream: \
             github.com/eclipse-threadx/threadx.)\n"
        )
    };
    let dir = PathBuf::from(dir);
    if !dir.is_absolute() {
        panic!(
            "\n\nTHREADX_DIR is {}: give it as an absolute path (cargo builds this crate from \
             another directory)\n",
            dir.display()
        );
    }
    for needed in [
        "common/inc/tx_api.h",
        "common/src",
        "ports/linux/gnu/inc/tx_port.h",
        "ports/linux/gnu/src",
    ] {
        if !dir.join(needed).exists() {
            panic!(
                "\n\nTHREADX_DIR is {}, which has no {needed}: it must be a ThreadX source tree \
                 with the kernel (common/) and its Linux port (ports/linux/gnu/)\n",
                dir.display()
            );
        }
    }
    dir
}

/// The `.c` files of `dir`, in order (for a build that is the same each time).
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "c"))
        .collect();
    files.sort();
    files
}
