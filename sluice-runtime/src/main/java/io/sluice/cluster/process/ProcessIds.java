package io.sluice.cluster.process;

import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ids of cluster processes: {@code <role>-<pid>-<4 hex>}, unique per start of a process (a job
 * manager's id names its election contender and must never be reused by a later process; a task
 * manager's id names its registration). Stateless.
 */
final class ProcessIds {
    private ProcessIds() {}

    static String next(String role) {
        byte[] salt = new byte[2];
        ThreadLocalRandom.current().nextBytes(salt);
        return role + "-" + ProcessHandle.current().pid() + "-" + HexFormat.of().formatHex(salt);
    }
}
