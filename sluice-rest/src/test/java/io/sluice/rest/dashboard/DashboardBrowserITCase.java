package io.sluice.rest.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.sink.DiscardingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.examples.InjectedFailures;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.job.JobStatus;
import io.sluice.core.serialization.Serializers;
import io.sluice.storage.FaultInjectingBlobStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The dashboard in headless Chromium, against a real cluster and REST server on loopback: a job
 * goes RUNNING, RESTARTING after an injected failure, and RUNNING again; a job whose new job
 * manager finds checkpoint storage refusing connections shows INITIALIZING with its attempt count
 * and the storage error in words; a job whose code always throws is marked in the jobs list and on its
 * page with its crash loop and its stale checkpoints; a thousand jobs are listed a page at a time and
 * filtered on the server. Screenshots go to {@code target/dashboard-screenshots/}.
 *
 * <p>The number of jobs listed is {@code -Dsluice.it.jobs}, as in {@code ThousandJobsITCase}: 1,000 with
 * {@code -Psoak}, 200 in the default build (four pages of fifty, enough for the paging, the row reuse
 * and the filters; each of the running tenth keeps a source waking every 10 ms, so a thousand slow
 * a shared build for the whole test).
 */
class DashboardBrowserITCase {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String TOKEN = "browser-test-token";
    private static final int JOBS = Integer.getInteger("sluice.it.jobs", 1_000);

    private static HeadlessChromium browser;

    @TempDir
    Path dir;
    private DashboardTestCluster cluster;
    private final FailOnDemand failOnDemand = new FailOnDemand();

    @BeforeAll
    static void startBrowser() throws Exception {
        browser = HeadlessChromium.start();
    }

    @AfterAll
    static void stopBrowser() throws Exception {
        if (browser != null) {
            browser.close();
        }
    }

    @AfterEach
    void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
        failOnDemand.release();
    }

    /** The keyed counting job behind a pass-through map that fails when the test says so. */
    private JobGraph countingJob(String name, double rate, Duration restartDelay) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                .enableCheckpointing(Duration.ofMillis(200))
                .setCheckpointDir(dir.resolve("checkpoints").toString())
                .setRestartStrategy(new RestartStrategyConfig.FixedDelay(5, restartDelay));
        env.fromSource(SequenceSource.unbounded(0).withRate(rate), "numbers")
                .map(failOnDemand).name("fail on demand").returns(Serializers.LONG)
                .keyBy(new KeyedCountingJob.ModKey(8))
                .map(new KeyedCountingJob.CountPerKey(8, InjectedFailures.none())).name("count per key")
                .returns(Serializers.tuple2(Serializers.LONG, Serializers.LONG))
                .addSink(new DiscardingSink<>(), "results");
        return env.buildJobGraph(name);
    }

    private WebDriver page() {
        return browser.driver();
    }

    private String shownStatus() {
        return page().findElement(By.id("job-status")).getAttribute("data-status");
    }

    private void awaitShownStatus(JobStatus status) {
        new WebDriverWait(page(), WAIT).withMessage(() -> "the dashboard to show " + status + "; it shows "
                + shownStatus()).until(d -> status.name().equals(shownStatus()));
    }

    /**
     * The statuses of the job page's timeline. The page redraws the timeline at each poll, so an item found
     * can be gone when read (a StaleElementReferenceException, seen in CI): read again until one reading
     * completes.
     */
    private List<String> timeline() {
        return new WebDriverWait(page(), WAIT).ignoring(StaleElementReferenceException.class)
                .withMessage("the job page's timeline read").until(d -> d.findElements(By.cssSelector("#timeline li"))
                        .stream().map(li -> li.getAttribute("data-status")).toList());
    }

    @Test
    void showsAJobRunningThenRestartingAfterAFailureThenRunningAgain() throws Exception {
        cluster = DashboardTestCluster.start(dir, TOKEN, LocalCluster.builder());
        JobId job = cluster.cluster().submit(countingJob("dashboard restart", 400, Duration.ofSeconds(3)));

        // The jobs list, opened once with ?token= (kept in session storage afterwards).
        page().get(cluster.baseUrl() + "/?token=" + TOKEN + "#/");
        new WebDriverWait(page(), WAIT).until(d -> !d.findElements(By.cssSelector("tr[data-job-id='" + job.value() + "']"))
                .isEmpty());
        assertThat(page().getCurrentUrl()).as("the token is taken out of the address").doesNotContain(TOKEN);
        WebElement row = page().findElement(By.cssSelector("tr[data-job-id='" + job.value() + "']"));
        assertThat(row.getText()).contains("dashboard restart");
        browser.screenshot("jobs-list");

        row.findElement(By.tagName("a")).click();
        awaitShownStatus(JobStatus.RUNNING);
        assertThat(page().findElements(By.cssSelector("#graph g.box"))).as("one box per operator").hasSize(
                cluster.cluster().dispatcher().requestJobDetails(job).get(5, TimeUnit.SECONDS).vertices().size());
        assertThat(page().findElements(By.cssSelector("#graph path.edge"))).isNotEmpty();
        assertThat(page().findElement(By.id("graph")).getText()).contains("parallelism 2");
        browser.screenshot("job-running");

        failOnDemand.failNextRecord(); // the restart waits 3 s, so the page (polling every second) sees RESTARTING
        awaitShownStatus(JobStatus.RESTARTING);
        browser.screenshot("job-restarting");
        assertThat(page().findElement(By.id("restarts")).getText()).contains("Restarts: 1");

        awaitShownStatus(JobStatus.RUNNING);
        new WebDriverWait(page(), WAIT).until(d -> !d.findElements(By.cssSelector("#checkpoint-chart canvas")).isEmpty()
                && !d.findElements(By.cssSelector("#throughput-chart canvas")).isEmpty());
        // Give the throughput chart a few points after the restart.
        int rows = page().findElements(By.cssSelector("#checkpoints-body tr")).size();
        new WebDriverWait(page(), WAIT).until(d -> d.findElements(By.cssSelector("#checkpoints-body tr")).size() > rows
                || rows >= 10);
        assertThat(timeline()).containsSubsequence("RUNNING", "RESTARTING", "RUNNING");
        assertThat(page().findElement(By.id("connection")).getText()).startsWith("Updated");
        Path shot = browser.screenshot("job-running-again");
        assertThat(Files.size(shot)).isPositive();

        // A savepoint appears in the job page's savepoint table, with the path to restore from.
        assertThat(page().findElement(By.id("savepoint-summary")).getText()).startsWith("No savepoints");
        io.sluice.checkpoint.Savepoint savepoint = cluster.cluster().dispatcher()
                .triggerSavepoint(job, dir.resolve("savepoints").toString(), false).get(60, TimeUnit.SECONDS);
        String savepointRow = "#savepoints-body tr[data-savepoint='" + savepoint.checkpointId() + "']";
        new WebDriverWait(page(), WAIT).withMessage("the savepoint listed on the job page")
                .until(d -> !d.findElements(By.cssSelector(savepointRow)).isEmpty());
        assertThat(page().findElement(By.cssSelector(savepointRow)).getText()).contains(savepoint.path());
        assertThat(page().findElement(By.id("savepoint-summary")).getText()).startsWith("1 savepoint(s)");
        browser.screenshot("job-savepoint");
    }

    @Test
    void marksAJobInACrashLoopWithoutCheckpointsInTheJobsListAndOnItsPage() throws Exception {
        cluster = DashboardTestCluster.start(dir, TOKEN, LocalCluster.builder());
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(1)
                .enableCheckpointing(Duration.ofMillis(100)).setCheckpointDir(dir.resolve("checkpoints").toString())
                .setCheckpointStaleAfter(Duration.ofSeconds(1))
                .setRestartStrategy(new RestartStrategyConfig.FixedDelay(1_000, Duration.ofMillis(100)));
        env.fromSource(SequenceSource.unbounded(0).withRate(100), "numbers").map(new AlwaysThrows()).name("parse")
                .returns(Serializers.LONG).addSink(new DiscardingSink<>(), "results");
        JobId looping = cluster.cluster().submit(env.buildJobGraph("dashboard crash loop"));
        JobId healthy = cluster.cluster().submit(countingJob("dashboard healthy", 100, Duration.ofSeconds(1)));

        page().get(cluster.baseUrl() + "/?token=" + TOKEN + "#/");
        String row = "tr[data-job-id='" + looping.value() + "']";
        new WebDriverWait(page(), WAIT).withMessage("the crash loop and the stale checkpoints marked in the jobs list")
                .until(d -> !d.findElements(By.cssSelector(row + " li[data-mark='crash-loop']")).isEmpty()
                        && !d.findElements(By.cssSelector(row + " li[data-mark='checkpoints-stale']")).isEmpty());
        // The looping job's row changes with every restart (its mark counts them), and a changed row is
        // filled anew: marks and link found just before a poll can be gone when read, so each is read
        // again from the current row until one reading succeeds.
        record Marks(int loopCount, String loop, String stale) {
        }
        Marks listed = new WebDriverWait(page(), WAIT).ignoring(StaleElementReferenceException.class)
                .withMessage("the crash-looping job's marks read").until(d -> {
                    WebElement loop = d.findElement(By.cssSelector(row + " li[data-mark='crash-loop']"));
                    WebElement stale = d.findElement(By.cssSelector(row + " li[data-mark='checkpoints-stale']"));
                    return new Marks(Integer.parseInt(loop.getAttribute("data-count")), loop.getText(), stale.getText());
                });
        assertThat(listed.loopCount()).isGreaterThanOrEqualTo(3);
        assertThat(listed.loop()).startsWith("Crash loop: the same error ").contains(" times since ");
        assertThat(listed.stale()).startsWith("No checkpoint since ");
        assertThat(page().findElements(By.cssSelector("tr[data-job-id='" + healthy.value() + "'] li.mark")))
                .as("a healthy job gets no mark").isEmpty();
        browser.screenshot("jobs-list-crash-loop");

        new WebDriverWait(page(), WAIT).ignoring(StaleElementReferenceException.class)
                .withMessage("the crash-looping job's link in the jobs list clicked")
                .until(d -> {
                    d.findElement(By.cssSelector(row + " a")).click();
                    return true;
                });
        // The job page fills its marks from its own polls: the crash loop can be listed a poll before the
        // stale checkpoints (seen in CI), so wait for both before reading the list.
        String marks = new WebDriverWait(page(), WAIT).ignoring(StaleElementReferenceException.class)
                .withMessage("both marks on the crash-looping job's page").until(d -> {
                    if (!d.findElement(By.id("marks")).isDisplayed()) {
                        return null;
                    }
                    String text = d.findElement(By.id("marks-list")).getText();
                    return text.contains("crash loop: the same error") && text.contains("no checkpoint since") ? text : null;
                });
        assertThat(marks).contains("crash loop: the same error").contains("cannot reach the lookup service")
                .contains("--restore-from latest:" + looping.value()).contains("no checkpoint since");
        browser.screenshot("job-crash-loop");
    }

    /**
     * {@link #JOBS} jobs (nine in ten finished, one in ten running; a thousand with {@code -Psoak}): the list
     * shows them fifty at a time with the total; a poll that brings no change touches no row (a mutation observer on the table counts
     * none over two polls, and the row nodes stay the same); walking the pages with "Older" lists
     * each job exactly once; the status, name and "needs attention" filters run on the server and
     * count exactly.
     */
    @Test
    void listsHundredsOfJobsFiftyAtATimeWithoutRebuildingRowsAndFiltersThemOnTheServer() throws Exception {
        assertThat(JOBS).as("sluice.it.jobs: more than two pages of fifty").isGreaterThan(100);
        assertThat(JOBS % 50).as("sluice.it.jobs: whole pages of fifty").isZero();
        int streams = JOBS / 10;
        int batches = JOBS - streams;
        System.out.println("DashboardBrowserITCase: " + JOBS + " jobs (sluice.it.jobs)");
        cluster = DashboardTestCluster.start(dir, TOKEN, LocalCluster.builder().taskExecutors(4)
                .slotsPerTaskExecutor(Math.max(250, JOBS / 4)));
        java.util.Set<String> submitted = new java.util.HashSet<>();
        List<String> names = new java.util.ArrayList<>();
        for (int i = 0; i < JOBS; i++) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(1);
            boolean streaming = i % 10 == 0;
            env.fromSource(streaming ? SequenceSource.unbounded(0).withRate(1) : SequenceSource.bounded(0, 9), "numbers")
                    .addSink(new DiscardingSink<>(), "discard");
            String name = streaming ? "tiny stream " + i / 10 : "tiny batch " + (i - i / 10 - 1);
            names.add(name);
            submitted.add(cluster.cluster().submit(env.buildJobGraph(name)).value());
        }
        await().atMost(Duration.ofSeconds(120)).until(() -> {
            List<io.sluice.protocol.JobSummary> jobs = cluster.cluster().dispatcher().listJobs().get(10, TimeUnit.SECONDS);
            return jobs.stream().filter(j -> j.status() == JobStatus.FINISHED).count() == batches
                    && jobs.stream().filter(j -> j.status() == JobStatus.RUNNING).count() == streams;
        });

        page().get(cluster.baseUrl() + "/?token=" + TOKEN + "#/");
        awaitListShows(JOBS, 1);
        assertThat(page().findElements(By.cssSelector("#jobs-body tr"))).as("one page of rows, not all of them").hasSize(50);
        assertThat(page().findElement(By.id("jobs-count")).getText().replaceAll("[^0-9–a-zA-Z ]", ""))
                .as("the count, its digits grouped as the browser's locale groups them").isEqualTo("Jobs 1–50 of " + JOBS);
        assertThat(page().findElement(By.id("jobs-prev")).isEnabled()).isFalse();
        browser.screenshot("jobs-list-many");

        // Two polls without a change rebuild nothing.
        JavascriptExecutor js = (JavascriptExecutor) page();
        js.executeScript("window.sluiceMutations = 0; window.sluiceFirstRow = document.querySelector('#jobs-body tr');"
                + "new MutationObserver(function (m) { window.sluiceMutations += m.length; })"
                + ".observe(document.getElementById('jobs-body'), {childList: true, subtree: true, characterData: true,"
                + " attributes: true});");
        int polls = polls();
        new WebDriverWait(page(), WAIT).until(d -> polls() >= polls + 2);
        assertThat(((Number) js.executeScript("return window.sluiceMutations;")).longValue()).isZero();
        assertThat((Boolean) js.executeScript("return window.sluiceFirstRow === document.querySelector('#jobs-body tr');"))
                .as("the same row node").isTrue();

        // Every page, "Older" after "Older": each job exactly once.
        List<String> walked = new java.util.ArrayList<>(rowIds());
        List<String> beforeLast = List.of();
        for (int first = 51; first <= JOBS; first += 50) {
            beforeLast = rowIds();
            page().findElement(By.id("jobs-next")).click();
            awaitListShows(JOBS, first);
            walked.addAll(rowIds());
        }
        assertThat(page().findElement(By.id("jobs-next")).isEnabled()).as("the last page").isFalse();
        assertThat(walked).hasSize(JOBS).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(submitted);
        page().findElement(By.id("jobs-prev")).click();
        awaitListShows(JOBS, JOBS - 99);
        assertThat(rowIds()).isEqualTo(beforeLast);

        // Filters, answered by the server: exact counts.
        Select status = new Select(page().findElement(By.id("filter-status")));
        status.selectByValue("RUNNING");
        awaitListShows(streams, 1);
        assertThat(page().findElements(By.cssSelector("#jobs-body tr"))).hasSize(Math.min(streams, 50))
                .allSatisfy(r -> assertThat(r.getAttribute("data-status")).isEqualTo("RUNNING"));
        status.selectByValue("FINISHED");
        awaitListShows(batches, 1);
        // "BATCH 8": batch 8 and batch 80..89 (and 800..899 with a thousand jobs), fewer than a page.
        String batchPrefix = JOBS >= 1_000 ? "tiny batch 89" : "tiny batch 8";
        int batchMatches = (int) names.stream().filter(n -> n.startsWith(batchPrefix)).count();
        assertThat(batchMatches).as("the batches named '%s...'", batchPrefix).isBetween(2, 50);
        page().findElement(By.id("filter-name")).sendKeys(batchPrefix.substring("tiny ".length()).toUpperCase(java.util.Locale.ROOT));
        awaitListShows(batchMatches, 1);
        assertThat(rowNames()).hasSize(batchMatches).allMatch(name -> name.startsWith(batchPrefix));
        assertThat(page().findElement(By.id("jobs-next")).isEnabled()).isFalse();
        status.selectByValue("");
        page().findElement(By.id("filter-name")).clear();
        page().findElement(By.id("filter-name")).sendKeys("stream 1");
        int streamMatches = (int) names.stream().filter(n -> n.startsWith("tiny stream 1")).count(); // 1, 10..19, ...
        assertThat(streamMatches).as("the streams named 'stream 1...'").isBetween(2, 50);
        new WebDriverWait(page(), WAIT).ignoring(org.openqa.selenium.StaleElementReferenceException.class)
                .withMessage(() -> "the streams named 'stream 1...'; the list shows " + rowNames()).until(d -> rowNames().stream().allMatch(name -> name.startsWith("tiny stream 1")));
        awaitListShows(streamMatches, 1);
        assertThat(rowNames()).hasSize(streamMatches);
        browser.screenshot("jobs-list-filtered");
        page().findElement(By.id("filter-attention")).click();
        awaitListShows(0, 0);
        assertThat(page().findElement(By.id("jobs-none-match")).isDisplayed()).isTrue();
        assertThat(page().findElements(By.cssSelector("#jobs-body tr"))).isEmpty();
    }

    private int polls() {
        String polls = page().findElement(By.id("view-jobs")).getAttribute("data-polls");
        return polls == null ? 0 : Integer.parseInt(polls);
    }

    private List<String> rowNames() {
        return page().findElements(By.cssSelector("#jobs-body tr a")).stream().map(WebElement::getText).toList();
    }

    private List<String> rowIds() {
        return page().findElements(By.cssSelector("#jobs-body tr")).stream().map(r -> r.getAttribute("data-job-id")).toList();
    }

    /** Waits until the list says {@code total} matching jobs and shows the page starting at {@code first}. */
    private void awaitListShows(int total, int first) {
        new WebDriverWait(page(), WAIT).withMessage(() -> "the list to show " + total + " jobs from " + first + "; it shows "
                + page().findElement(By.id("jobs-count")).getAttribute("data-total") + " from "
                + page().findElement(By.id("jobs-count")).getAttribute("data-first")).until(d -> {
                    WebElement count = d.findElement(By.id("jobs-count"));
                    return String.valueOf(total).equals(count.getAttribute("data-total"))
                            && String.valueOf(first).equals(count.getAttribute("data-first"));
                });
    }

    /**
     * Code that cannot start: it fails in {@code open}, before its task runs, so no checkpoint of the
     * job can ever complete (a checkpoint needs every task running). Failing on the first record
     * instead let a checkpoint slip in now and then between a task's start and that record on a
     * loaded machine, and the "no checkpoint since" mark went away for a second.
     */
    static final class AlwaysThrows implements io.sluice.api.functions.MapFunction<Long, Long>,
            io.sluice.api.functions.RichFunction {
        @Override
        public void open(io.sluice.api.functions.RuntimeContext context) {
            throw new IllegalStateException("cannot reach the lookup service at lookup:7000");
        }

        @Override
        public Long map(Long value) {
            return value;
        }
    }

    @Test
    void showsAJobWaitingOnRefusedStorageAsInitializingWithItsAttempts() throws Exception {
        cluster = DashboardTestCluster.start(dir, TOKEN, LocalCluster.builder()
                .haDirectory(dir.resolve("ha"))
                .recoveryBackoff(new io.sluice.jobmaster.RecoveryBackoff(Duration.ofMillis(200), Duration.ofMillis(800),
                        2.0, 0.2)));
        JobId job = cluster.cluster().submit(countingJob("dashboard recovery", 2_000, Duration.ofMillis(100)));
        await().atMost(WAIT).until(() -> cluster.cluster().dispatcher().requestJobDetails(job).get(5, TimeUnit.SECONDS)
                .checkpoints().completed() >= 1);

        // A second job manager takes over while checkpoint storage refuses connections.
        LocalCluster.JobManager standby = cluster.cluster().startJobManager();
        FaultInjectingBlobStore storage = cluster.faults();
        storage.refuseConnections();
        cluster.cluster().stopJobManager(cluster.cluster().jobManagers().get(0));
        await().atMost(WAIT).until(() -> standby.dispatcher().isLeader());

        page().get(cluster.baseUrl() + "/?token=" + TOKEN + "#/jobs/" + job.value());
        awaitShownStatus(JobStatus.INITIALIZING);
        new WebDriverWait(page(), WAIT).withMessage("the recovery attempt count to reach 3").until(d -> {
            String attempt = d.findElement(By.id("recovery-text")).getAttribute("data-attempt");
            return attempt != null && Integer.parseInt(attempt) >= 3;
        });
        String text = page().findElement(By.id("recovery-text")).getText();
        assertThat(text).containsPattern("Recovery attempt \\d+");
        assertThat(page().findElement(By.id("recovery-error")).getText()).startsWith("Last error: ")
                .containsIgnoringCase("refused");
        browser.screenshot("job-initializing");

        storage.heal();
        awaitShownStatus(JobStatus.RUNNING);
        assertThat(page().findElement(By.id("recovery")).isDisplayed()).isFalse();
        browser.screenshot("job-recovered");
    }
}
