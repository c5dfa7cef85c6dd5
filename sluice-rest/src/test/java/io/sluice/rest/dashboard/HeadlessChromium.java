package io.sluice.rest.dashboard;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Debian's Chromium, driven through Debian's chromedriver, both given explicitly so that Selenium
 * downloads nothing. Started headless with a fresh profile and without background networking.
 *
 * <p>When either binary is missing the test fails, saying to run {@code scripts/install-test-deps.sh};
 * only with {@code -Dsluice.skipBrowserTests=true} is it skipped instead.
 */
final class HeadlessChromium implements AutoCloseable {
    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    static final String SKIP_PROPERTY = "sluice.skipBrowserTests";
    /** Where screenshots go, under the module's target folder. */
    static final Path SCREENSHOTS = Path.of("target", "dashboard-screenshots");

    private final ChromeDriver driver;
    private final Path profile;

    private HeadlessChromium(ChromeDriver driver, Path profile) {
        this.driver = driver;
        this.profile = profile;
    }

    /** Starts the browser, or fails (or, with the skip property, aborts) the test when Chromium is missing. */
    static HeadlessChromium start() throws IOException {
        requireInstalled(CHROMIUM, CHROMEDRIVER, Boolean.getBoolean(SKIP_PROPERTY));
        System.setProperty("webdriver.chrome.driver", CHROMEDRIVER.toString());
        Path profile = Files.createTempDirectory("sluice-chromium-profile");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
                "--user-data-dir=" + profile.toAbsolutePath(), "--window-size=1280,1800");
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort()
                .build();
        ChromeDriver driver = new ChromeDriver(service, options);
        driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
        return new HeadlessChromium(driver, profile);
    }

    /**
     * Fails the test, saying how to install them, when {@code chromium} or {@code chromedriver} is
     * not an executable file; with {@code skip} it aborts the test (reported as skipped) instead.
     */
    static void requireInstalled(Path chromium, Path chromedriver, boolean skip) {
        if (Files.isExecutable(chromium) && Files.isExecutable(chromedriver)) {
            return;
        }
        String message = "The dashboard's browser test needs Debian's chromium and chromium-driver (" + chromium
                + ", " + chromedriver + "), which are not installed. Run ./scripts/install-test-deps.sh (the project's"
                + " test command ./scripts/test does), or pass -D" + SKIP_PROPERTY + "=true to skip this test.";
        if (skip) {
            Assumptions.abort(message);
        }
        fail(message);
    }

    ChromeDriver driver() {
        return driver;
    }

    /** Saves a screenshot of the page as {@code target/dashboard-screenshots/<name>.png}; returns its path. */
    Path screenshot(String name) throws IOException {
        Files.createDirectories(SCREENSHOTS);
        File shot = driver.getScreenshotAs(OutputType.FILE);
        Path target = SCREENSHOTS.resolve(name + ".png");
        Files.copy(shot.toPath(), target, StandardCopyOption.REPLACE_EXISTING);
        return target;
    }

    @Override
    public void close() throws IOException {
        try {
            driver.quit();
        } finally {
            deleteRecursively(profile);
        }
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
