/**
 * The slot pool: the task executors' slots a job master deploys into, and the loss of a task
 * executor.
 *
 * <p>Layer 9 of 15 in sluice-runtime (slots; docs/architecture.md). May use the packages of the
 * layers below: {@code rpc}, {@code restart}, {@code metrics}, {@code rpc.remote}, {@code
 * storage}, {@code network}, {@code network.netty}, {@code job}, {@code checkpoint}, {@code
 * protocol}, {@code jar}. Uses today: {@code protocol}. Never a package of a layer above; no
 * cycles (the module's architecture test checks both).
 */
package io.sluice.slots;
