//! Deployment: what an instructor ships without a Rust toolchain. The
//! portable release archive (`scripts/dist.sh`, slow tier), Gradescope's
//! zip run as Gradescope runs it, a student repository's CI run step by step
//! as a plain user, the Slurm recipe on a one-node Slurm cluster, the
//! Kubernetes manifests against the API schema, and the completions and man
//! page.

#[macro_use]
#[path = "../util/mod.rs"]
mod util;

mod actionlint;
mod ci;
mod conventions;
mod dist;
mod gradescope;
mod kubernetes;
mod recipes;
mod refusals;
mod slurm;
