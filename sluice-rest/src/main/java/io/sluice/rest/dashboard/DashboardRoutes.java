package io.sluice.rest.dashboard;

import io.sluice.rest.RestRouter;
import io.sluice.rest.RestRoutes;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The web dashboard: {@code GET /} (and {@code /dashboard/}) serve its page, {@code /dashboard/...}
 * its script, style sheet and the uPlot charting library, from the classpath folder
 * {@code io/sluice/rest/dashboard/} of this jar and from uPlot's WebJar. Each asset is a route of
 * its own, loaded into memory when the routes are built: no path parameter, so no request can
 * name any other file. The assets carry no cluster data and are served without the token; the page
 * calls the {@code /v1} routes with it (see {@code docs/dashboard.md}).
 *
 * <p>Threading: the constructor reads the classpath (call it while assembling the server, never on
 * a component's main thread); the handlers only write bytes already in memory.
 */
public final class DashboardRoutes implements RestRoutes {
    static final String FOLDER = "io/sluice/rest/dashboard/";
    static final String PROPERTIES = FOLDER + "dashboard.properties";
    /** Allows the page's own scripts and styles only, and inline style attributes (set by the charts). */
    static final String CONTENT_SECURITY_POLICY = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline';"
            + " img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

    private record Asset(byte[] content, String contentType) {
    }

    private final Map<String, Asset> assets = new LinkedHashMap<>();

    public DashboardRoutes() {
        ClassLoader loader = DashboardRoutes.class.getClassLoader();
        Asset index = new Asset(read(loader, FOLDER + "index.html"), "text/html; charset=utf-8");
        assets.put("/", index);
        assets.put("/dashboard/", index);
        assets.put("/dashboard/app.js", new Asset(read(loader, FOLDER + "app.js"), "text/javascript; charset=utf-8"));
        assets.put("/dashboard/style.css", new Asset(read(loader, FOLDER + "style.css"), "text/css; charset=utf-8"));
        String uplot = "META-INF/resources/webjars/uplot/" + uplotVersion(loader) + "/dist/";
        assets.put("/dashboard/vendor/uPlot.iife.min.js",
                new Asset(read(loader, uplot + "uPlot.iife.min.js"), "text/javascript; charset=utf-8"));
        assets.put("/dashboard/vendor/uPlot.min.css", new Asset(read(loader, uplot + "uPlot.min.css"), "text/css; charset=utf-8"));
    }

    @Override
    public void register(RestRouter router) {
        for (Map.Entry<String, Asset> e : assets.entrySet()) {
            Asset asset = e.getValue();
            // The page may be opened once with ?token=<token> (kept in the tab's session storage).
            List<String> query = asset.contentType().startsWith("text/html") ? List.of("token") : List.of();
            router.publicGet(e.getKey(), query, ctx -> {
                ctx.header("Cache-Control", "no-cache");
                ctx.header("X-Content-Type-Options", "nosniff");
                ctx.header("Referrer-Policy", "no-referrer");
                if (asset.contentType().startsWith("text/html")) {
                    ctx.header("Content-Security-Policy", CONTENT_SECURITY_POLICY);
                }
                ctx.contentType(asset.contentType()).result(asset.content());
            });
        }
    }

    /** The paths this class serves (for tests and the OpenAPI document). */
    public List<String> paths() {
        return List.copyOf(assets.keySet());
    }

    /** The uPlot WebJar version, written into {@value #PROPERTIES} by the build (the version in the parent pom). */
    private static String uplotVersion(ClassLoader loader) {
        Properties p = new Properties();
        try (InputStream in = loader.getResourceAsStream(PROPERTIES)) {
            if (in == null) {
                throw new IllegalStateException("Dashboard asset " + PROPERTIES + " is missing from the classpath;"
                        + " the sluice-rest jar is incomplete");
            }
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read " + PROPERTIES, e);
        }
        String version = p.getProperty("uplot.version");
        if (version == null || version.isBlank() || version.startsWith("$")) {
            throw new IllegalStateException(PROPERTIES + " names no uPlot version (" + version + "); it is filtered by"
                    + " the Maven build of sluice-rest");
        }
        return version;
    }

    private static byte[] read(ClassLoader loader, String resource) {
        try (InputStream in = loader.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("Dashboard asset " + resource + " is missing from the classpath;"
                        + " the sluice-rest jar is incomplete");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the dashboard asset " + resource, e);
        }
    }
}
