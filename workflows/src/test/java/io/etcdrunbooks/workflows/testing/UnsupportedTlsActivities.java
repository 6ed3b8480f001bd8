package io.etcdrunbooks.workflows.testing;

import io.etcdrunbooks.workflows.activities.TlsActivities;
import java.util.List;

/**
 * {@link TlsActivities} with every method throwing: a fake implements this and overrides only what
 * its runbook calls, so a call it does not expect fails naming the method. A fake that still
 * declares a stub of its own compiles too; a method added to the interface gets its default here.
 */
public interface UnsupportedTlsActivities extends TlsActivities {

  @Override
  default void awaitServedCertificate(AwaitCertificateRequest request) {
    throw new UnsupportedOperationException(
        "TlsActivities.awaitServedCertificate is not faked here");
  }

  @Override
  default List<String> checkCertificates(CheckCertificatesRequest request) {
    throw new UnsupportedOperationException("TlsActivities.checkCertificates is not faked here");
  }

  @Override
  default String installCertificate(InstallCertificateRequest request) {
    throw new UnsupportedOperationException("TlsActivities.installCertificate is not faked here");
  }

  @Override
  default List<PresentedCertificate> otherCertificates(OtherCertificatesRequest request) {
    throw new UnsupportedOperationException("TlsActivities.otherCertificates is not faked here");
  }

  @Override
  default PlacedCertificates placeCertificates(PlaceCertificatesRequest request) {
    throw new UnsupportedOperationException("TlsActivities.placeCertificates is not faked here");
  }

  @Override
  default PlacedTrust placeTrust(PlaceTrustRequest request) {
    throw new UnsupportedOperationException("TlsActivities.placeTrust is not faked here");
  }

  @Override
  default List<String> plainHttpServed(PlainHttpRequest request) {
    throw new UnsupportedOperationException("TlsActivities.plainHttpServed is not faked here");
  }

  @Override
  default boolean putCertificateBack(InstallCertificateRequest request) {
    throw new UnsupportedOperationException("TlsActivities.putCertificateBack is not faked here");
  }

  @Override
  default boolean removePlacedCertificates(PlaceCertificatesRequest request) {
    throw new UnsupportedOperationException(
        "TlsActivities.removePlacedCertificates is not faked here");
  }

  @Override
  default boolean removePlacedTrust(PlaceTrustRequest request) {
    throw new UnsupportedOperationException("TlsActivities.removePlacedTrust is not faked here");
  }

  @Override
  default String workerTrust(WorkerTrustRequest request) {
    throw new UnsupportedOperationException("TlsActivities.workerTrust is not faked here");
  }
}
