#!/usr/bin/env bash
# Session 5, device run 2: the first half of QuACK's nvidia_cutlass_dsl_libs_cu13 wheel into /tmp/q1.
mkdir -p /tmp/q1 && cp .q1/cu13.part.aa /tmp/q1/ && ls /tmp/oprt-main | head -2 && echo staged
