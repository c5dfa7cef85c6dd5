package io.sluice.chaos;

import io.sluice.cluster.LocalCluster;
import io.sluice.graph.JobId;
import io.sluice.ha.HighAvailabilityServices;
import io.sluice.ha.embedded.EmbeddedHaServices;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** Embedded HA on a directory; revocation through the election service's test hook (a lease expiry). */
record EmbeddedChaosHa(Path directory) implements ChaosHa {
    @Override
    public String name() {
        return "embedded";
    }

    @Override
    public HighAvailabilityServices open() {
        return new EmbeddedHaServices(directory);
    }

    @Override
    public void revoke(LocalCluster cluster, JobId job) {
        ((EmbeddedHaServices) cluster.haServices()).leaderElectionService()
                .revokeLeader(EmbeddedHaServices.jobLeadershipName(job));
    }

    @Override
    public List<String> pointers(JobId job) throws IOException {
        Path d = directory.resolve("checkpoints").resolve(job.value());
        if (!Files.isDirectory(d)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(d)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }
}
