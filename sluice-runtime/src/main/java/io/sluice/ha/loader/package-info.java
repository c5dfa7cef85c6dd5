/**
 * Creates the HA services {@code high-availability.type} names: embedded, memory, ZooKeeper, or a
 * factory class.
 *
 * <p>Layer 10 of 15 in sluice-runtime (high availability; docs/architecture.md). May use the
 * packages of the layers below: {@code rpc}, {@code restart}, {@code metrics}, {@code rpc.remote},
 * {@code storage}, {@code network}, {@code network.netty}, {@code job}, {@code checkpoint}, {@code
 * protocol}, {@code jar}, {@code slots}, and of its own layer: {@code ha}, {@code ha.embedded},
 * {@code ha.memory}. Uses today: {@code ha}, {@code ha.embedded}, {@code ha.memory}. Never a
 * package of a layer above; no cycles (the module's architecture test checks both).
 */
package io.sluice.ha.loader;
