#!/usr/bin/env bash
# Runs the grading Job, waits for every shard, then runs the merge Job
# (written by `autograder package kubernetes`). kubectl must point at the
# namespace holding the claim @CLAIM@. A Job that fails leaves its wait to
# the timeout: `kubectl describe job autograder-grade` says why.
set -euo pipefail
cd "$(dirname "$0")"
kubectl apply -f grade-job.yaml
kubectl wait --for=condition=complete --timeout=24h job/autograder-grade
kubectl apply -f merge-job.yaml
kubectl wait --for=condition=complete --timeout=1h job/autograder-merge
echo "reports on the claim @CLAIM@: report.json, grades.csv, dashboard.html"
