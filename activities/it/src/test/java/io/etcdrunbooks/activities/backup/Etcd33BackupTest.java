package io.etcdrunbooks.activities.backup;

import io.etcdrunbooks.testkit.RealEtcd;

@RealEtcd
class Etcd33BackupTest extends BackupActivitiesContract {

  @Override
  String version() {
    return "3.3.25";
  }
}
