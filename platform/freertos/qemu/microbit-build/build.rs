//! Passes freertos-next's directory (its `links` metadata, which only a direct
//! dependent's build script sees) on to this crate's code.

fn main() {
    let dir =
        std::env::var("DEP_FREERTOS_CRATE_DIR").expect("freertos-next's build script sets it");
    println!("cargo:rustc-env=ANTPOOL_FREERTOS_NEXT_DIR={dir}");
}
