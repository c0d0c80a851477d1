//! What the QEMU programs' build scripts (`../build.rs`,
//! `../../qemu-static/build.rs`) need to build for QEMU's `microbit` board: the
//! BBC micro:bit's nRF51822, a Cortex-M0 (`thumbv6m-none-eabi`) with 16 KiB of
//! RAM.
//!
//! On the other boards `freertos-next` is a dependency of the program: it
//! brings the kernel's sources, and its build script tells `freertos-build`
//! where they are. It does not build for `thumbv6m-none-eabi` (its `os-trait`
//! dependency needs `alloc::sync::Arc`, so compare-and-swap), so there this
//! crate stands in for it: built for the host as a build-dependency, it
//! depends on `freertos-next` itself and hands its directory on. And
//! `freertos-build` names no port for the target: this picks `GCC/ARM_CM0`.

use std::env;
use std::path::Path;
use std::process::Command;

use freertos_build::Builder;
use freertos_build::prelude::*;

/// The micro:bit's memory map for cortex-m-rt's `link.x` (`memory.x`):
/// 256 KiB of flash at 0x0, 16 KiB of RAM at 0x2000_0000.
pub const MEMORY_X: &[u8] = include_bytes!("../memory-microbit.x");

/// Whether this build script builds for the micro:bit (`thumbv6m-none-eabi`);
/// if so, the program is compiled with `cfg(microbit)`.
pub fn microbit() -> bool {
    println!("cargo:rustc-check-cfg=cfg(microbit)");
    let yes = env::var("TARGET").is_ok_and(|target| target == "thumbv6m-none-eabi");
    if yes {
        println!("cargo:rustc-cfg=microbit");
    }
    yes
}

/// A kernel builder for the micro:bit, as `Builder::new()` is for the other
/// boards: freertos-next's kernel sources and `FreeRTOSConfig.h`, the
/// `ARM_CM0` port, the nRF51's 16 MHz clock. `settings` are the kernel
/// switches the program would have turned on through freertos-next's
/// features (`"INCLUDE_vTaskSuspend"`, …: freertos-build reads them as
/// freertos-next's `links` metadata). Also links libgcc (see below).
pub fn kernel(settings: &[&str]) -> Builder {
    // What freertos-next's build script would have told this build script.
    // SAFETY: a build script has one thread, and nothing else reads or
    // writes its environment while this runs.
    unsafe {
        env::set_var("DEP_FREERTOS_CRATE_DIR", env!("ANTPOOL_FREERTOS_NEXT_DIR"));
        env::set_var("DEP_FREERTOS_DEF___IS_CORTEX_M", "1");
        for setting in settings {
            env::set_var(format!("DEP_FREERTOS_DEF_{}", setting.to_uppercase()), "1");
        }
    }
    let mut kernel = Builder::new();
    kernel.freertos_port("GCC/ARM_CM0");
    // Only the port's own SysTick set-up reads it; the programs tick on
    // TIMER1 instead (the nRF51 has no SysTick).
    kernel.cpu_clock(16.MHz());
    link_libgcc(&mut kernel);
    kernel
}

/// Optimising for size (`opt-level = "s"` or `"z"`, usual on a Cortex-M0),
/// GCC compiles some of the kernel's `switch`es for ARMv6-M into calls to
/// libgcc (`__gnu_thumb1_case_uqi` and its kind), which Rust's
/// `compiler_builtins` does not have: link the libgcc of the C compiler that
/// builds the kernel, for the Cortex-M0. (Only what is missing comes from it.)
fn link_libgcc(kernel: &mut Builder) {
    let gcc = kernel.get_cc().get_compiler();
    let out = Command::new(gcc.path())
        .args(["-mcpu=cortex-m0", "-mthumb", "-print-libgcc-file-name"])
        .output()
        .unwrap_or_else(|e| panic!("running {:?}: {e}", gcc.path()));
    let file = String::from_utf8(out.stdout).expect("a path");
    let file = Path::new(file.trim());
    // (A GCC that has no libgcc prints its bare name.)
    assert!(
        file.is_file(),
        "{:?} knows no libgcc for the Cortex-M0: {file:?}",
        gcc.path()
    );
    let dir = file.parent().expect("a file's directory");
    println!("cargo:rustc-link-search=native={}", dir.display());
    println!("cargo:rustc-link-lib=static=gcc");
}
