/*
 * version.h - the one version string of ioscope: iorecord, libiorecord.so
 * and ioanalyze are released together and print the same version.
 */
#ifndef IOSCOPE_VERSION_H
#define IOSCOPE_VERSION_H

#define IOSCOPE_VERSION "0.1.0"
/* Where the project's documentation lives (SARIF's informationUri, helpUri). */
#define IOSCOPE_URL "https://github.com/ioscope/ioscope"

#endif
