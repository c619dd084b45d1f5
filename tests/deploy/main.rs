//! Deployment: what an instructor ships without a Rust toolchain. The
//! portable release archive (`scripts/dist.sh`, slow tier), Gradescope's
//! zip run as Gradescope runs it, a student repository's CI run step by step
//! as a plain user and its GitLab job under gitlab-ci-local, the Slurm
//! recipe on a one-node Slurm cluster, the Kubernetes manifests against the
//! API schema, and the completions and man page.

#[macro_use]
#[path = "../util/mod.rs"]
mod util;

mod actionlint;
mod ci;
mod conventions;
mod dist;
mod gitlab;
mod gradescope;
mod kubernetes;
mod out_of_memory;
mod recipes;
mod refusals;
mod serve;
mod slurm;
