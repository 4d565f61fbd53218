/*
 * version.h - the one version string of ioscope: iorecord, libiorecord.so
 * and ioanalyze are released together and print the same version.
 */
#ifndef IOSCOPE_VERSION_H
#define IOSCOPE_VERSION_H

#define IOSCOPE_VERSION "0.1.0"

#endif
