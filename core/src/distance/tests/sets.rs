//! The choice of kernel set: `HOROSVEC_KERNEL` parsing and the sets this CPU offers.

use crate::distance::*;

/// `HOROSVEC_KERNEL` parsing and the choice of set, as pure functions.
#[test]
fn choosing_a_set() {
    assert!(!forces_scalar(None));
    assert!(!forces_scalar(Some("")));
    assert!(!forces_scalar(Some("auto")));
    assert!(!forces_scalar(Some("avx2-fma-f16c")));
    assert!(forces_scalar(Some("scalar")));
    assert!(forces_scalar(Some(" Scalar\n")));

    let all = available_kernels();
    assert_eq!(all[0].name, "scalar");
    assert!(std::ptr::eq(all[0], scalar_kernels()));
    assert!(std::ptr::eq(pick(true), scalar_kernels()));
    assert!(std::ptr::eq(pick(false), *all.last().unwrap()));
    let mut names: Vec<&str> = all.iter().map(|k| k.name).collect();
    names.dedup();
    assert_eq!(names.len(), all.len(), "duplicate set names: {names:?}");

    let chosen = kernels();
    assert!(!chosen.name.is_empty());
    assert!(all.iter().any(|k| std::ptr::eq(*k, chosen)));
    assert!(std::ptr::eq(chosen, kernels()), "chosen once");
}

/// The sets this CPU should offer, by name.
#[test]
fn expected_sets_for_this_cpu() {
    let names: Vec<&str> = available_kernels().iter().map(|k| k.name).collect();
    #[cfg(target_arch = "x86_64")]
    {
        let mut want = vec!["scalar"];
        if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
            want.push("avx2-fma");
            if is_x86_feature_detected!("f16c") {
                want.push("avx2-fma-f16c");
            }
        }
        assert_eq!(names, want);
    }
    #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
    assert_eq!(names, ["scalar", "neon"]);
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    assert_eq!(names, ["scalar", "wasm-simd128"]);
    assert!(!names.is_empty());
}
