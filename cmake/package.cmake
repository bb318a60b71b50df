# The Debian package: `cpack -G DEB` in the build directory (after the
# build) writes tuner_<version>_<arch>.deb with what `cmake --install`
# installs, under /usr. Its Depends come from dpkg-shlibdeps (dpkg-dev):
# the Debian packages of the shared libraries tuner links.
# cpack and `make install` do not build `all` first (cpack would build every
# test and benchmark): build, then package.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME tuner)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "hyperparameter sweeps with asynchronous successive halving")
set(CPACK_PACKAGE_DESCRIPTION
    "tuner fills a training script's command line, reads the metrics it \
prints, stops bad trials early (ASHA) and records every trial in SQLite. \
It runs sweeps from the command line or as a service with a dashboard.")
set(CPACK_PACKAGE_CONTACT "tuner maintainers <tuner@localhost>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS bash-completion)
include(CPack)
