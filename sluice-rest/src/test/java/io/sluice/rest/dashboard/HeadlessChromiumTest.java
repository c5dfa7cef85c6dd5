package io.sluice.rest.dashboard;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/** Without Chromium the browser test fails saying what to run; only when asked is it skipped. */
class HeadlessChromiumTest {
    private static final Path MISSING = Path.of("/nonexistent/chromium");

    @Test
    void failsWithTheInstallCommandWhenChromiumIsMissing() {
        assertThatThrownBy(() -> HeadlessChromium.requireInstalled(MISSING, HeadlessChromium.CHROMEDRIVER, false))
                .isInstanceOf(AssertionFailedError.class)
                .hasMessageContaining("./scripts/install-test-deps.sh")
                .hasMessageContaining("-Dsluice.skipBrowserTests=true")
                .hasMessageContaining("/nonexistent/chromium");
    }

    @Test
    void isSkippedWithTheSameMessageOnlyWhenTheSkipPropertyIsSet() {
        assertThatThrownBy(() -> HeadlessChromium.requireInstalled(HeadlessChromium.CHROMIUM, MISSING, true))
                .isInstanceOf(TestAbortedException.class)
                .hasMessageContaining("./scripts/install-test-deps.sh");
    }
}
