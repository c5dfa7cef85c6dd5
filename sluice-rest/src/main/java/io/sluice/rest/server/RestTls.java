package io.sluice.rest.server;

import io.javalin.config.JettyConfig;
import io.sluice.rest.RestServerConfig;
import io.sluice.security.tls.TlsIdentity;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/**
 * HTTPS for the REST server: one Jetty connector on the configured address and port with the key and
 * certificate chain of {@code rest.tls.*} (TLS 1.3 and 1.2 only), in place of the plain one. Clients
 * are not asked for certificates (they authenticate with the bearer token). Stateless; called
 * while the server is built.
 */
final class RestTls {
    private RestTls() {}

    static void addHttpsConnector(JettyConfig jetty, RestServerConfig config) {
        TlsIdentity identity = config.tls();
        jetty.addConnector((server, http) -> {
            SslContextFactory.Server ssl = new SslContextFactory.Server();
            ssl.setSslContext(identity.jdkContext());
            ssl.setIncludeProtocols(TlsIdentity.PROTOCOLS.toArray(new String[0]));
            ssl.setSniRequired(false);
            SecureRequestCustomizer secure = new SecureRequestCustomizer();
            secure.setSniHostCheck(false); // clients reach it by IP address, too; the certificate is theirs to check
            http.addCustomizer(secure);
            ServerConnector connector = new ServerConnector(server, new SslConnectionFactory(ssl, "http/1.1"),
                    new HttpConnectionFactory(http));
            connector.setHost(config.bindAddress());
            connector.setPort(config.port());
            return connector;
        });
    }
}
