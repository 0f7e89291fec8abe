//! Distance kernels: the one place where vectors meet arithmetic.
//!
//! `scalar` is the specification; every SIMD kernel (`x86`, `aarch64`, `wasm_simd`) is tested
//! against it for every dimension from 1 to 1100, with unaligned slices. The best kernel set for
//! this CPU is picked once, at first use, into a table of function pointers ([`kernels`]); its
//! [`Kernels::name`] appears in stats, the CLI and every benchmark record.
//!
//! Units: `l2sq` is squared Euclidean distance; `dot` is the plain inner product (callers negate it
//! so that lower is closer); `l1` is the sum of absolute differences. Stored vectors are `f32` or
//! IEEE-754 half precision (`half::f16`); queries are always `f32`.
// TEMPORARY scalar-only stub; replaced by the kernel module.
#![allow(missing_docs)]
use half::f16;
pub struct Kernels {
    pub name: &'static str,
    pub dot_f32: fn(&[f32], &[f32]) -> f32,
    pub l2sq_f32: fn(&[f32], &[f32]) -> f32,
    pub l1_f32: fn(&[f32], &[f32]) -> f32,
    pub dot_f16: fn(&[f32], &[f16]) -> f32,
    pub l2sq_f16: fn(&[f32], &[f16]) -> f32,
    pub l1_f16: fn(&[f32], &[f16]) -> f32,
    pub dot_f32_x4: fn(&[&[f32]; 4], &[f32]) -> [f32; 4],
    pub l2sq_f32_x4: fn(&[&[f32]; 4], &[f32]) -> [f32; 4],
}
fn dot(a: &[f32], b: &[f32]) -> f32 { a.iter().zip(b).map(|(x, y)| x * y).sum() }
fn l2(a: &[f32], b: &[f32]) -> f32 { a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum() }
fn l1(a: &[f32], b: &[f32]) -> f32 { a.iter().zip(b).map(|(x, y)| (x - y).abs()).sum() }
fn dot16(a: &[f32], b: &[f16]) -> f32 { a.iter().zip(b).map(|(x, y)| x * y.to_f32()).sum() }
fn l216(a: &[f32], b: &[f16]) -> f32 { a.iter().zip(b).map(|(x, y)| (x - y.to_f32()).powi(2)).sum() }
fn l116(a: &[f32], b: &[f16]) -> f32 { a.iter().zip(b).map(|(x, y)| (x - y.to_f32()).abs()).sum() }
fn dot4(q: &[&[f32]; 4], r: &[f32]) -> [f32; 4] { [dot(q[0], r), dot(q[1], r), dot(q[2], r), dot(q[3], r)] }
fn l24(q: &[&[f32]; 4], r: &[f32]) -> [f32; 4] { [l2(q[0], r), l2(q[1], r), l2(q[2], r), l2(q[3], r)] }
static SCALAR: Kernels = Kernels { name: "scalar", dot_f32: dot, l2sq_f32: l2, l1_f32: l1, dot_f16: dot16, l2sq_f16: l216, l1_f16: l116, dot_f32_x4: dot4, l2sq_f32_x4: l24 };
pub fn kernels() -> &'static Kernels { &SCALAR }
pub fn scalar_kernels() -> &'static Kernels { &SCALAR }
pub fn available_kernels() -> Vec<&'static Kernels> { vec![&SCALAR] }
