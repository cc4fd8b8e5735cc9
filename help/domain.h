/*
 * PMDA domain number of pmdastackprof (unused in PCP 6.0.3's stdpmid).
 */
#define STACKPROF 170
