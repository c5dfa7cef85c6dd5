package io.sluice.rest.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.cluster.LocalCluster;
import io.sluice.rest.RestRouter;
import io.sluice.rest.RestTestClient;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The dashboard's assets over HTTP: served without the token, each from its fixed route, nothing else. */
class DashboardRoutesTest {
    private static final String TOKEN = "dashboard-test-token";

    @TempDir
    Path dir;
    private DashboardTestCluster cluster;
    private RestTestClient anonymous;

    @BeforeEach
    void start() {
        cluster = DashboardTestCluster.start(dir, TOKEN, LocalCluster.builder().taskExecutors(1).slotsPerTaskExecutor(1));
        anonymous = new RestTestClient(cluster.server().port());
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    @Test
    void thePageAndItsAssetsAreServedWithoutTheToken() {
        RestTestClient.Answer page = anonymous.get("/");
        assertThat(page.status()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("text/html"));
        assertThat(page.headers().firstValue("Content-Security-Policy")).hasValue(DashboardRoutes.CONTENT_SECURITY_POLICY);
        assertThat(page.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
        assertThat(page.body()).contains("<title>Sluice dashboard</title>", "/dashboard/app.js", "/dashboard/vendor/uPlot.iife.min.js");
        assertThat(anonymous.get("/dashboard/").body()).isEqualTo(page.body());
        assertThat(anonymous.get("/?token=abc").status()).as("the page takes ?token= once").isEqualTo(200);

        RestTestClient.Answer script = anonymous.get("/dashboard/app.js");
        assertThat(script.status()).isEqualTo(200);
        assertThat(script.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("text/javascript"));
        assertThat(anonymous.get("/dashboard/style.css").headers().firstValue("Content-Type"))
                .hasValueSatisfying(v -> assertThat(v).startsWith("text/css"));
        RestTestClient.Answer uplot = anonymous.get("/dashboard/vendor/uPlot.iife.min.js");
        assertThat(uplot.status()).isEqualTo(200);
        assertThat(uplot.body()).contains("uPlot");
        assertThat(anonymous.get("/dashboard/vendor/uPlot.min.css").body()).contains(".uplot");
    }

    @Test
    void theClusterDataBehindThePageStillNeedsTheToken() {
        assertThat(anonymous.get("/v1/jobs").status()).isEqualTo(401);
        assertThat(anonymous.get("/metrics").status()).isEqualTo(401);
        assertThat(anonymous.withToken(TOKEN).get("/v1/jobs").status()).isEqualTo(200);
    }

    @Test
    void noOtherFileCanBeReached() {
        for (String path : new String[] {"/dashboard/../pom.xml", "/dashboard/%2e%2e/pom.xml", "/dashboard/vendor/..%2f..%2fpom.xml",
                "/dashboard/index.html", "/dashboard/vendor/uPlot.esm.js", "/io/sluice/rest/dashboard/app.js",
                "/META-INF/resources/webjars/uplot/1.6.30/dist/uPlot.iife.min.js", "/dashboard/openapi.json"}) {
            RestTestClient.Answer a = anonymous.get(path);
            assertThat(a.status()).as(path).isIn(400, 401, 404);
            assertThat(a.json()).as(path + ": a JSON error, not a file").isNotNull();
            assertThat(a.json().has("error")).as(path).isTrue();
            assertThat(a.body()).as(path).doesNotContain("<project", "function(");
        }
        RestTestClient.Answer extra = anonymous.get("/dashboard/app.js?file=../../pom.xml");
        assertThat(extra.status()).as("unknown query parameters are refused").isEqualTo(400);
    }

    @Test
    void everyAssetIsAPublicRouteOfItsOwn() {
        assertThat(cluster.server().routes()).filteredOn(r -> r.access() == RestRouter.Access.PUBLIC)
                .extracting(RestRouter.Route::path)
                .containsExactlyInAnyOrderElementsOf(new DashboardRoutes().paths());
    }
}
