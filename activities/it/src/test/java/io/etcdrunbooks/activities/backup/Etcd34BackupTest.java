package io.etcdrunbooks.activities.backup;

class Etcd34BackupTest extends BackupActivitiesContract {

  @Override
  String version() {
    return "3.4.23";
  }
}
