//! Builds FreeRTOS-Kernel V11.2.0 (freertos-next's copy) for the Cortex-M3
//! (`GCC/ARM_CM3`, picked from the target) and puts `memory.x` where
//! cortex-m-rt's `link.x` looks for it.

use std::path::PathBuf;
use std::{env, fs};

use freertos_build::prelude::*;

fn main() {
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    fs::write(out.join("memory.x"), include_bytes!("memory.x")).expect("write memory.x");
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-changed=memory.x");
    println!("cargo:rerun-if-changed=config/UserConfig.h");

    let mut kernel = freertos_build::Builder::new();
    // mps2-an385's system clock, which drives SysTick: a 1 kHz tick.
    kernel.cpu_clock(25.MHz());
    kernel.heap_size(256 * 1024);
    // Words: the idle task's stack.
    kernel.minimal_stack_size(256);
    kernel.max_task_priorities(5);
    // 3 priority bits (as the board's NVIC has); kernel at the lowest, syscalls up to 5.
    kernel.interrupt_priority_bits(3, 5, 7);
    // Method 2 (watermark pattern at the stack's end, checked at every switch):
    // a worker stack too small for its jobs ends the demo with its name.
    kernel.check_for_stack_overflow(2);
    kernel.user_config_dir("config");
    // The kernel's own C is not ours to warn about.
    kernel.get_cc().warnings(false);
    if let Err(e) = kernel.compile() {
        panic!("building the FreeRTOS kernel failed: {e:?}");
    }
}
