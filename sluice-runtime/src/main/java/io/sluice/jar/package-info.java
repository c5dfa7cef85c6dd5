/**
 * User code: job jar stores, the child-first class loaders and their leases, packaged programs and
 * the submission of a jar's program to a dispatcher.
 *
 * <p>Layer 8 of 15 in sluice-runtime (user code; docs/architecture.md). May use the packages of
 * the layers below: {@code rpc}, {@code restart}, {@code metrics}, {@code rpc.remote}, {@code
 * storage}, {@code network}, {@code network.netty}, {@code job}, {@code checkpoint}, {@code
 * protocol}. Uses today: {@code protocol}, {@code rpc}. Never a package of a layer above; no
 * cycles (the module's architecture test checks both).
 */
package io.sluice.jar;
