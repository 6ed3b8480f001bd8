package io.etcdrunbooks.activities.backup;

class Etcd35BackupTest extends BackupActivitiesContract {

  @Override
  String version() {
    return "3.5.30";
  }
}
