package io.sluice.connector.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Properties;
import org.junit.jupiter.api.Test;

class PartitionDiscoveryTest {

    @Test
    void theAdminClientGetsTheConnectionAndSecuritySettingsOfTheConsumerAndAClientIdOfItsOwn() {
        Properties consumer = new Properties();
        consumer.put("bootstrap.servers", "broker-1:9093");
        consumer.put("security.protocol", "SASL_SSL");
        consumer.put("sasl.mechanism", "SCRAM-SHA-512");
        consumer.put("client.id", "sluice-source-2");
        consumer.put("isolation.level", "read_committed"); // consumer only
        consumer.put("value.deserializer", "org.apache.kafka.common.serialization.ByteArrayDeserializer");

        Properties admin = PartitionDiscovery.adminProperties(consumer);

        assertThat(admin).containsEntry("bootstrap.servers", "broker-1:9093")
                .containsEntry("security.protocol", "SASL_SSL").containsEntry("sasl.mechanism", "SCRAM-SHA-512")
                .containsEntry("client.id", "sluice-source-2-discovery")
                .doesNotContainKeys("isolation.level", "value.deserializer");
    }
}
