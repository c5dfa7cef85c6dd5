/**
 * Many jobs on one job manager: what an idle job costs (heap after GC, threads, CPU) and how
 * submitting, listing and cancelling scale with the number of jobs. A plain main that prints medians;
 * its smoke test asserts counts only. Uses the runtime's {@code LocalCluster} and the REST server,
 * like the other harnesses of this module; no other package of the module uses it.
 */
package io.sluice.bench.jobs;
