/**
 * The lifecycle of one job under its job master, as a state machine: a sealed state type with one
 * class per state, each with a narrow context of the transitions and actions it may use, and one
 * guarded transition method. What the states do to the job (deploy, cancel, fail over, finish) the
 * job master supplies.
 *
 * <p>Layer 12 of 15 in sluice-runtime (job master; docs/architecture.md), below {@code jobmaster}
 * and {@code jobmaster.deployment}, which use it. May use the packages of the layers below: {@code
 * rpc}, {@code restart}, {@code metrics}, {@code security.tls}, {@code rpc.remote}, {@code
 * storage}, {@code network}, {@code network.netty}, {@code job}, {@code checkpoint}, {@code
 * protocol}, {@code jar}, {@code slots}, {@code ha}, {@code ha.embedded}, {@code ha.memory}, {@code
 * ha.loader}, {@code checkpoint.coordinator}, {@code taskexecutor}, {@code metrics.job}; never
 * {@code jobmaster} or {@code jobmaster.deployment} (that would be a cycle). Uses today: {@code
 * job}, {@code protocol}, {@code rpc}. Never a package of a layer above; no cycles (the module's
 * architecture test checks both).
 */
package io.sluice.jobmaster.lifecycle;
