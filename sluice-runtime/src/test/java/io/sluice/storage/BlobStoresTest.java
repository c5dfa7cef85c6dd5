package io.sluice.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BlobStoresTest {
    @TempDir
    Path dir;

    @Test
    void fileUriOpensALocalStore() {
        BlobStore store = BlobStores.open(dir.toUri().toString());

        assertThat(store).isInstanceOf(LocalFileBlobStore.class);
        assertThat(((LocalFileBlobStore) store).root()).isEqualTo(dir.toAbsolutePath().normalize());
        assertThat(store.describe()).isEqualTo("file://" + dir.toAbsolutePath().normalize());
    }

    @Test
    void plainPathOpensALocalStore() {
        BlobStore store = BlobStores.open(dir.toString());

        assertThat(((LocalFileBlobStore) store).root()).isEqualTo(dir.toAbsolutePath().normalize());
    }

    @Test
    void aStoreOpenedForARoleNamesItInItsErrors() {
        String location = "file://" + dir.toAbsolutePath().normalize();
        BlobStore ha = BlobStores.open(dir.toUri().toString(), null, StorageException.HA_STORAGE);
        BlobStore checkpoints = BlobStores.open(dir.toUri().toString());

        assertThat(ha.role()).isEqualTo("HA storage");
        assertThatThrownBy(() -> ha.get("jobjars/missing.jar")).isInstanceOf(BlobNotFoundException.class)
                .hasMessageStartingWith("HA storage " + location + " has no blob during get jobjars/missing.jar");
        assertThat(checkpoints.role()).isEqualTo("Checkpoint storage");
        assertThatThrownBy(() -> checkpoints.get("chk-1/_metadata"))
                .hasMessageStartingWith("Checkpoint storage " + location + " has no blob during get chk-1/_metadata");
    }

    @Test
    void s3WithoutTheS3ModuleSaysWhichModuleToAdd() {
        assertThatThrownBy(() -> BlobStores.open("s3://bucket/checkpoints"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("S3 checkpoint storage is not available")
                .hasMessageContaining("s3://bucket/checkpoints")
                .hasMessageContaining("sluice-storage-s3");
    }

    @Test
    void unknownSchemeNamesLocationAndSupportedSchemes() {
        assertThatThrownBy(() -> BlobStores.open("hdfs://nn:8020/cp"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("hdfs://nn:8020/cp")
                .hasMessageContaining("file:///");
    }

    @Test
    void fileUriWithAHostIsRejected() {
        assertThatThrownBy(() -> BlobStores.open("file://otherhost/cp"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("otherhost");
    }

    @Test
    void aRejectedLocationNamesTheRoleItWasGivenFor() {
        assertThatThrownBy(() -> BlobStores.open("file://otherhost/ha", null, StorageException.HA_STORAGE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("HA storage location 'file://otherhost/ha' names host 'otherhost'");
        assertThatThrownBy(() -> BlobStores.open("s3://bucket/sluice-ha", null, StorageException.HA_STORAGE))
                .hasMessageStartingWith("S3 HA storage is not available: s3://bucket/sluice-ha");
        assertThatThrownBy(() -> BlobStores.open("file://otherhost/cp"))
                .hasMessageStartingWith("Checkpoint storage location 'file://otherhost/cp' names host");
    }
}
