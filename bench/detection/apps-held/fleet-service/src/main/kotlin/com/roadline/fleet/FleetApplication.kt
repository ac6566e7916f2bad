package com.roadline.fleet

import org.springframework.boot.autoconfigure.SpringBootApplication
import org.springframework.boot.context.properties.ConfigurationPropertiesScan
import org.springframework.boot.runApplication

@SpringBootApplication
@ConfigurationPropertiesScan
class FleetApplication

fun main(args: Array<String>) {
    runApplication<FleetApplication>(*args)
}
