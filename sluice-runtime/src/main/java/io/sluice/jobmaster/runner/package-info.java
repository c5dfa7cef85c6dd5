/**
 * The leadership of one job on this job manager: {@link io.sluice.jobmaster.runner.JobManagerRunner}
 * joins the job's election and, while it leads, recovers the job's checkpoints, runs a job master,
 * and records the job's result. Its lifecycle is a sealed state type
 * ({@link io.sluice.jobmaster.runner.RunnerState}: not leading, recovering, leading, suspending,
 * ending, ended, closed), one class per state, each with a context listing the moves it may make;
 * grant and revoke run on one serialized chain ({@link io.sluice.jobmaster.runner.LeadershipChain}).
 * After every change the runner publishes what status calls show, one immutable {@link
 * io.sluice.jobmaster.runner.StatusView}, read from any thread without a hop to its main thread.
 *
 * <p>Layer 13 of 15 in sluice-runtime (job manager runner; docs/architecture.md). May use the
 * packages of the layers below: {@code rpc}, {@code restart}, {@code metrics}, {@code rpc.remote},
 * {@code storage}, {@code network}, {@code network.netty}, {@code job}, {@code checkpoint}, {@code
 * protocol}, {@code jar}, {@code slots}, {@code ha}, {@code ha.embedded}, {@code ha.memory}, {@code
 * ha.loader}, {@code checkpoint.coordinator}, {@code taskexecutor}, {@code metrics.job}, {@code
 * jobmaster}. Uses today: {@code checkpoint}, {@code ha}, {@code job}, {@code jobmaster}, {@code
 * metrics.job}, {@code protocol}, {@code restart}, {@code rpc}, {@code slots}, {@code storage}.
 * Never a package of a layer above; no cycles (the module's architecture test checks both).
 */
package io.sluice.jobmaster.runner;
