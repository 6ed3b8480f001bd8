package io.etcdrunbooks.worker;

import io.etcdrunbooks.workflows.activities.TlsActivities;
import java.util.List;

/** The real TLS activities, every call forwarded: tests override the one they break. */
class ForwardingTlsActivities implements TlsActivities {

  private final TlsActivities real;

  ForwardingTlsActivities(TlsActivities real) {
    this.real = real;
  }

  @Override
  public List<String> checkCertificates(CheckCertificatesRequest request) {
    return real.checkCertificates(request);
  }

  @Override
  public List<PresentedCertificate> otherCertificates(OtherCertificatesRequest request) {
    return real.otherCertificates(request);
  }

  @Override
  public String renewCertificateFile(RenewCertificateFileRequest request) {
    return real.renewCertificateFile(request);
  }

  @Override
  public boolean putCertificateFileBack(RenewCertificateFileRequest request) {
    return real.putCertificateFileBack(request);
  }

  @Override
  public void awaitServedPeerCertificate(AwaitCertificateRequest request) {
    real.awaitServedPeerCertificate(request);
  }

  @Override
  public String installCertificate(InstallCertificateRequest request) {
    return real.installCertificate(request);
  }

  @Override
  public boolean putCertificateBack(InstallCertificateRequest request) {
    return real.putCertificateBack(request);
  }

  @Override
  public void awaitServedCertificate(AwaitCertificateRequest request) {
    real.awaitServedCertificate(request);
  }

  @Override
  public PlacedCertificates placeCertificates(PlaceCertificatesRequest request) {
    return real.placeCertificates(request);
  }

  @Override
  public boolean removePlacedCertificates(PlaceCertificatesRequest request) {
    return real.removePlacedCertificates(request);
  }

  @Override
  public PlacedTrust placeTrust(PlaceTrustRequest request) {
    return real.placeTrust(request);
  }

  @Override
  public boolean removePlacedTrust(PlaceTrustRequest request) {
    return real.removePlacedTrust(request);
  }

  @Override
  public String workerTrust(WorkerTrustRequest request) {
    return real.workerTrust(request);
  }

  @Override
  public List<String> plainHttpServed(PlainHttpRequest request) {
    return real.plainHttpServed(request);
  }
}
