package io.etcdrunbooks.activities.backup;

import io.etcdrunbooks.testkit.RealEtcd;

@RealEtcd
class Etcd34BackupTest extends BackupActivitiesContract {

  @Override
  String version() {
    return "3.4.23";
  }
}
