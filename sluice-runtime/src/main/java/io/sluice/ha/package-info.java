/**
 * High availability: the services a cluster needs (leader election and retrieval, job graph, job
 * result, checkpoint pointer, savepoint entry and leader settings stores, checkpoint recovery) as interfaces.
 *
 * <p>Layer 10 of 15 in sluice-runtime (high availability; docs/architecture.md). May use the
 * packages of the layers below: {@code rpc}, {@code restart}, {@code metrics}, {@code rpc.remote},
 * {@code storage}, {@code network}, {@code network.netty}, {@code job}, {@code checkpoint}, {@code
 * protocol}, {@code jar}, {@code slots}, and of its own layer: {@code ha.embedded}, {@code
 * ha.memory}, {@code ha.loader}. Uses today: {@code checkpoint}, {@code jar}, {@code job}. Never a
 * package of a layer above; no cycles (the module's architecture test checks both).
 */
package io.sluice.ha;
