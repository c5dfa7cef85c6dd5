package io.sluice.testing.process;

import java.util.concurrent.CountDownLatch;

/**
 * The program {@link SharedClassArchiveTest} packs into a jar: prints {@code ready} and runs until it is stopped
 * (SIGTERM), like a Sluice process; with {@code --exit} prints {@code done} and ends.
 */
public final class ArchiveTrainee {
    private ArchiveTrainee() {}

    public static void main(String[] args) throws InterruptedException {
        if (args.length > 0 && args[0].equals("--exit")) {
            System.out.println("done");
            return;
        }
        System.out.println("ready");
        System.out.flush();
        new CountDownLatch(1).await(); // until the training run is stopped
    }
}
