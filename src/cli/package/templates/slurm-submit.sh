#!/usr/bin/env bash
# Queues the grading array (grade.sbatch, @SHARDS@ tasks) and the merge job
# (merge.sbatch) to start once every task has succeeded; a failed task
# cancels the merge (written by `autograder package slurm`). Run it on a
# login node; the reports land beside it.
set -euo pipefail
cd "$(dirname "$0")"
here=$(pwd)
mkdir -p logs shards
array=$(sbatch --parsable --chdir="$here" grade.sbatch)
array=${array%%;*}
merge=$(sbatch --parsable --chdir="$here" --dependency="afterok:$array" --kill-on-invalid-dep=yes merge.sbatch)
merge=${merge%%;*}
echo "grading array job: $array (@SHARDS@ tasks, logs/grade-K.out)"
echo "merge job: $merge (after the array; logs/merge.out)"
echo "reports when it ends: $here/report.json, grades.csv, dashboard.html"
