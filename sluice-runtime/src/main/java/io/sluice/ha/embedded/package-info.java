/**
 * Embedded HA: the HA services on a shared directory (atomic files, a directory lock, file-based
 * leader election), and the default completed-checkpoint store built on the checkpoint pointer
 * store.
 *
 * <p>Layer 10 of 15 in sluice-runtime (high availability; docs/architecture.md). May use the
 * packages of the layers below: {@code rpc}, {@code restart}, {@code metrics}, {@code rpc.remote},
 * {@code storage}, {@code network}, {@code network.netty}, {@code job}, {@code checkpoint}, {@code
 * protocol}, {@code jar}, {@code slots}, and of its own layer: {@code ha}, {@code ha.memory},
 * {@code ha.loader}. Uses today: {@code checkpoint}, {@code ha}, {@code jar}, {@code job}, {@code
 * rpc}, {@code storage}. Never a package of a layer above; no cycles (the module's architecture
 * test checks both).
 */
package io.sluice.ha.embedded;
