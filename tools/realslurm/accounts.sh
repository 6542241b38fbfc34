#!/usr/bin/env bash
# Create the cluster, QOS, accounts and users in slurmdbd (called by up.sh).
# Fair-share tree: root -> llm (70 shares: alice, bob), vision (30 shares: carol).
# QOS: normal (priority 0), high (priority 1000), low (priority 0, for contrast).
set -euo pipefail
S="sacctmgr -i"
$S add cluster slurmlab
$S add qos high priority=1000
$S add qos low priority=0
$S modify qos normal set priority=0
$S add account llm description=LLM organization=lab fairshare=70 cluster=slurmlab
$S add account vision description=Vision organization=lab fairshare=30 cluster=slurmlab
$S add user alice,bob account=llm fairshare=1 qos=normal,high,low defaultqos=normal
$S add user carol account=vision fairshare=1 qos=normal,high,low defaultqos=normal
$S modify user root set qos=normal,high,low defaultqos=normal || true
