/**
 * The metrics of one job: its status times and checkpoint counters.
 *
 * <p>Layer 11 of 15 in sluice-runtime (checkpoint coordination, task execution, job metrics;
 * docs/architecture.md). May use the packages of the layers below: {@code rpc}, {@code restart},
 * {@code metrics}, {@code rpc.remote}, {@code storage}, {@code network}, {@code network.netty},
 * {@code job}, {@code checkpoint}, {@code protocol}, {@code jar}, {@code slots}, {@code ha},
 * {@code ha.embedded}, {@code ha.memory}, {@code ha.loader}, and of its own layer: {@code
 * checkpoint.coordinator}, {@code taskexecutor}. Uses today: {@code checkpoint}, {@code job},
 * {@code metrics}, {@code protocol} ({@code JobHealth}), {@code restart} ({@code CrashLoop}). Never a package of a layer above; no cycles (the module's architecture test
 * checks both).
 */
package io.sluice.metrics.job;
