package io.sluice.concurrent;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URL;
import java.net.URLClassLoader;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class DaemonThreadFactoryTest {
    private static final Runnable NOTHING = () -> { };

    @Test
    void numbersTheThreadsFromOne() {
        DaemonThreadFactory f = DaemonThreadFactory.numbered("sluice-io-");
        assertThat(f.newThread(NOTHING).getName()).isEqualTo("sluice-io-1");
        assertThat(f.newThread(NOTHING).getName()).isEqualTo("sluice-io-2");
        assertThat(DaemonThreadFactory.numbered("other-").newThread(NOTHING).getName()).isEqualTo("other-1");
    }

    @Test
    void namedGivesEveryThreadTheSameName() {
        DaemonThreadFactory f = DaemonThreadFactory.named("sluice-ha-memory");
        assertThat(f.newThread(NOTHING).getName()).isEqualTo("sluice-ha-memory");
        assertThat(f.newThread(NOTHING).getName()).isEqualTo("sluice-ha-memory");
    }

    @Test
    void makesDaemonsWithSluicesClassLoaderNotTheCreatorsContext() throws Exception {
        try (URLClassLoader jobLoader = new URLClassLoader(new URL[0], null)) {
            AtomicReference<Thread> made = new AtomicReference<>();
            AtomicReference<Thread> wrapped = new AtomicReference<>();
            Thread creator = new Thread(() -> {
                made.set(DaemonThreadFactory.numbered("t-").newThread(NOTHING));
                wrapped.set(DaemonThreadFactory.withSluiceClassLoader(r -> new Thread(r, "library")).newThread(NOTHING));
            });
            creator.setContextClassLoader(jobLoader); // a job's task thread, say
            creator.start();
            creator.join();
            assertThat(made.get().isDaemon()).isTrue();
            assertThat(made.get().getContextClassLoader()).isSameAs(DaemonThreadFactory.class.getClassLoader());
            assertThat(wrapped.get().getName()).isEqualTo("library");
            assertThat(wrapped.get().getContextClassLoader()).isSameAs(DaemonThreadFactory.class.getClassLoader());
        }
    }

    @Test
    void withContextClassLoaderGivesAJobsThreadTheJobsLoaderAndKeepsTheName() throws Exception {
        try (URLClassLoader jobLoader = new URLClassLoader(new URL[0], null)) {
            DaemonThreadFactory f = DaemonThreadFactory.numbered("sluice-commit-").withContextClassLoader(jobLoader);
            Thread t = f.newThread(NOTHING);
            assertThat(t.getContextClassLoader()).isSameAs(jobLoader);
            assertThat(t.isDaemon()).isTrue();
            assertThat(t.getName()).isEqualTo("sluice-commit-1");
            assertThat(f.newThread(NOTHING).getName()).isEqualTo("sluice-commit-2");
            assertThat(DaemonThreadFactory.named("x").withContextClassLoader(jobLoader).newThread(NOTHING).getName())
                    .isEqualTo("x");
        }
    }
}
