#include "weft/core/low/low.h"
