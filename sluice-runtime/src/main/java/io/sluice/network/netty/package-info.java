/**
 * Data exchange over TCP (Netty) between task executors.
 *
 * <p>Layer 4 of 15 in sluice-runtime (network; docs/architecture.md). May use the packages of the
 * layers below: {@code rpc}, {@code restart}, {@code metrics}, {@code rpc.remote}, {@code
 * storage}, and of its own layer: {@code network}. Uses today: {@code metrics}, {@code network}.
 * Never a package of a layer above; no cycles (the module's architecture test checks both).
 */
package io.sluice.network.netty;
