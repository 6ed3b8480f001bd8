package io.etcdrunbooks.activities.backup;

class Etcd33BackupTest extends BackupActivitiesContract {

  @Override
  String version() {
    return "3.3.25";
  }
}
